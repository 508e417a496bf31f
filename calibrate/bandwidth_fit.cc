#include "calibrate/bandwidth_fit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "calibrate/collective_tables.h"
#include "calibrate/csv.h"
#include "simulator/cost/collective.h"

namespace shardsim::calibrate {
namespace {

std::optional<double> unit_scale(const std::string& unit) {
  static const std::map<std::string, double> kUnits = {
      {"TB/s", 1e12}, {"GB/s", 1e9}, {"MB/s", 1e6}};
  const auto it = kUnits.find(unit);
  if (it == kUnits.end()) return std::nullopt;
  return it->second;
}

struct Columns {
  int device = -1, test = -1, value = -1, unit = -1;
};

std::variant<BandwidthMeasurement, std::string> parse_row(const std::vector<std::string>& f,
                                                          const Columns& c) {
  const int need = std::max({c.device, c.test, c.value, c.unit});
  if (int(f.size()) <= need)
    return fmt::format("expected at least {} fields, got {}", need + 1, f.size());
  const auto& tests = bandwidth_tests();
  if (std::ranges::find(tests, f[c.test]) == tests.end())
    return fmt::format("unknown test \"{}\"; known: {}", f[c.test], fmt::join(tests, ", "));
  const auto scale = unit_scale(f[c.unit]);
  if (!scale) return fmt::format("unknown unit \"{}\" (TB/s, GB/s, MB/s)", f[c.unit]);
  const auto v = parse_number(f[c.value]);
  if (!v || *v <= 0) return fmt::format("value \"{}\" is not a number > 0", f[c.value]);
  return BandwidthMeasurement{f[c.device], f[c.test], *v * *scale, 0};
}

const BandwidthMeasurement* find_test(const std::vector<BandwidthMeasurement>& rows,
                                      const std::string& test) {
  const auto it = std::ranges::find(rows, test, &BandwidthMeasurement::test);
  return it == rows.end() ? nullptr : &*it;
}

}  // namespace

const std::vector<std::string>& bandwidth_tests() {
  static const std::vector<std::string> kTests = {"babelstream_copy",
                                                  "babelstream_mul",
                                                  "babelstream_add",
                                                  "babelstream_triad",
                                                  "babelstream_dot",
                                                  "nvbandwidth_host_to_device",
                                                  "nvbandwidth_device_to_host",
                                                  "nvbandwidth_device_to_device_read"};
  return kTests;
}

std::variant<std::vector<BandwidthMeasurement>, std::string> parse_bandwidth_csv(
    std::string_view text, const std::string& file, const std::string& device) {
  const auto lines = csv_lines(text);
  if (lines.empty()) return fmt::format("{}: no column header and no rows", file);
  const auto& h = lines.front().fields;
  const Columns c{csv_column(h, {"gpu", "device"}), csv_column(h, {"test"}),
                  csv_column(h, {"value"}), csv_column(h, {"unit"})};
  if (c.device < 0 || c.test < 0 || c.value < 0 || c.unit < 0)
    return fmt::format("{}:{}: needs columns gpu, test, value and unit", file,
                       lines.front().number);
  std::vector<BandwidthMeasurement> out;
  std::set<std::string> devices;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    // More fields than the header names: a value holding a comma, or columns shifted (found by
    // review, 2026-11-29: "X,babelstream_triad,1.7,TB/s,extra" was read).
    if (lines[i].fields.size() > h.size())
      return fmt::format("{}:{}: {} fields, but the header on line {} names {}", file,
                         lines[i].number, lines[i].fields.size(), lines.front().number, h.size());
    auto row = parse_row(lines[i].fields, c);
    if (auto* e = std::get_if<std::string>(&row))
      return fmt::format("{}:{}: {}", file, lines[i].number, *e);
    auto& r = std::get<BandwidthMeasurement>(row);
    if (!device_matches(r.device, device)) continue;
    r.line = lines[i].number;
    devices.insert(r.device);
    if (std::ranges::any_of(out, [&](const BandwidthMeasurement& o) {
          return o.device == r.device && o.test == r.test;
        }))
      return fmt::format("{}:{}: a second {} row for {}", file, r.line, r.test, r.device);
    out.push_back(std::move(r));
  }
  if (auto e = device_rows_error(file, devices, out.size(), 1, "no rows", device)) return *e;
  return out;
}

std::variant<BandwidthFit, std::string> fit_bandwidth(const std::vector<BandwidthMeasurement>& rows,
                                                      double hbm_reference,
                                                      const std::string& file) {
  BandwidthFit f;
  if (const auto* triad = find_test(rows, "babelstream_triad")) {
    // efficiency = measured triad / datasheet HBM bandwidth of the measured device
    f.memory_bound_efficiency = triad->bytes_per_second / hbm_reference;
    f.triad_bytes_per_second = triad->bytes_per_second;
    f.triad_line = triad->line;
    if (f.memory_bound_efficiency > 1)
      return fmt::format(
          "{}:{}: triad {:.3g} TB/s exceeds the HBM bandwidth {:.3g} TB/s it is "
          "divided by (wrong --base, --measured-on or --device?)",
          file, triad->line, triad->bytes_per_second / 1e12, hbm_reference / 1e12);
  }
  for (const char* test : {"nvbandwidth_host_to_device", "nvbandwidth_device_to_host"})
    if (const auto* c = find_test(rows, test); c && c->bytes_per_second > f.copy_bytes_per_second) {
      f.copy_bytes_per_second = c->bytes_per_second;
      f.copy_test = c->test;
      f.copy_line = c->line;
    }
  // pcie x kPcieCopyEfficiency = the best measured copy rate
  f.pcie_bytes_per_second = f.copy_bytes_per_second / kPcieCopyEfficiency;
  return f;
}

}  // namespace shardsim::calibrate
