#include "calibrate/compute_fit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "calibrate/collective_tables.h"
#include "calibrate/csv.h"
#include "calibrate/linear_fit.h"
#include "simulator/core/memory_kernel.h"
#include "simulator/hardware/measured_efficiency.h"

namespace shardsim::calibrate {
namespace {

constexpr double kTera = 1e12;

std::optional<std::string> canonical_dtype(const std::string& d) {
  static const std::map<std::string, std::string> kNames = {
      {"fp32", "fp32"},    {"float32", "fp32"}, {"float", "fp32"},  {"fp16", "fp16"},
      {"float16", "fp16"}, {"half", "fp16"},    {"bf16", "bf16"},   {"bfloat16", "bf16"},
      {"fp8", "fp8"},      {"fp8e4m3", "fp8"},  {"fp8e5m2", "fp8"}, {"fp8_e4m3fn", "fp8"},
      {"fp8_e5m2", "fp8"}, {"tf32", "tf32"}};
  const auto it = kNames.find(d);
  if (it == kNames.end()) return std::nullopt;
  return it->second;
}

// The dense peak of a canonical dtype name (0 when the profile has none): the peak the simulator
// multiplies a table efficiency by (cost/compute.cc gemm_peak_flops), so that a point reproduces
// its measured rate: fp32 (SGEMM, CUDA cores) against the FP32 peak, tf32 against TF32's (FP32's
// on a profile without TF32, as gemm_cost prices it there). Until 2026-11-28 fp32 points were
// taken against TF32's and tf32 rows set only the peak, so "fp32" meant SGEMM on a profile with
// such points and TF32 on the others (README "Known inconsistencies").
struct Peak {
  const char* name;  // the peak's own dtype: "fp32" for tf32 rows where the profile has no TF32
  double flops_per_second;
};
Peak peak_of(const PeakFlops& p, const std::string& dtype) {
  if (dtype == "fp16") return {"fp16", p.fp16};
  if (dtype == "bf16") return {"bf16", p.bf16};
  if (dtype == "fp8") return {"fp8", p.fp8};
  if (dtype == "tf32" && p.tf32 > 0) return {"tf32", p.tf32};
  return {"fp32", p.fp32};
}

struct Columns {
  int m = -1, n = -1, k = -1, tflops = -1, dtype = -1, batch = -1, device = -1;
};

std::variant<Columns, std::string> find_columns(const std::vector<std::string>& h) {
  for (const auto names : {std::initializer_list<const char*>{"m", "best_m"},
                           std::initializer_list<const char*>{"n", "best_n"},
                           std::initializer_list<const char*>{"k", "best_k"},
                           std::initializer_list<const char*>{"tflops", "mamf_tflops"},
                           std::initializer_list<const char*>{"gpu", "accelerator"}})
    if (auto e = ambiguous_column(h, names)) return *e;
  Columns c{csv_column(h, {"m", "best_m"}),
            csv_column(h, {"n", "best_n"}),
            csv_column(h, {"k", "best_k"}),
            csv_column(h, {"tflops", "mamf_tflops"}),
            csv_column(h, {"dtype"}),
            csv_column(h, {"batch"}),
            csv_column(h, {"gpu", "accelerator"})};
  if (c.m < 0 || c.n < 0 || c.k < 0 || c.tflops < 0 || c.dtype < 0)
    return std::string(
        "needs columns m, n, k, tflops and dtype (or best_m, best_n, best_k, "
        "mamf_tflops)");
  return c;
}

// "" when row `f` holds every column `c` names; else the error (without the file:line prefix).
std::string short_row(const std::vector<std::string>& f, const Columns& c) {
  const int need = std::max({c.m, c.n, c.k, c.tflops, c.dtype, c.batch, c.device});
  if (int(f.size()) <= need)
    return fmt::format("expected at least {} fields, got {}", need + 1, f.size());
  return "";
}

// One data row that short_row accepted, or an error message (without the file:line prefix).
std::variant<GemmMeasurement, std::string> parse_row(const std::vector<std::string>& f,
                                                     const Columns& c) {
  const auto dtype = canonical_dtype(f[c.dtype]);
  if (!dtype) return fmt::format("unknown dtype \"{}\" (fp32, tf32, fp16, bf16, fp8)", f[c.dtype]);
  const auto m = parse_number(f[c.m]), n = parse_number(f[c.n]), k = parse_number(f[c.k]);
  const auto t = parse_number(f[c.tflops]);
  const auto b = c.batch >= 0 ? parse_number(f[c.batch]) : std::optional<double>(1);
  const auto whole = [](const std::optional<double>& v) {
    return v && *v >= 1 && std::floor(*v) == *v;
  };
  if (!whole(m) || !whole(n) || !whole(k) || !whole(b) || !t || *t <= 0)
    return std::string("m, n, k, batch must be whole numbers >= 1 and tflops > 0");
  // The profile reader's limit on a GEMM point's dimensions (hardware.h): said here at the CSV's
  // line, not as /compute/gemm_points/N/m of the profile being written (found by review,
  // 2026-11-28). A batched row is stored with m x batch rows.
  constexpr double kMaxGemmDim = kMaxMeasuredDimension;
  if (*m * *b > kMaxGemmDim || *n > kMaxGemmDim || *k > kMaxGemmDim)
    return fmt::format(
        "m x batch, n and k must be at most {:g} (a GEMM point's limit), got {:g} x {:g} x {:g}",
        kMaxGemmDim, *m * *b, *n, *k);
  return GemmMeasurement{*dtype, *m * *b, *n, *k, *t * kTera, 0};
}

}  // namespace

std::variant<std::vector<GemmMeasurement>, std::string> parse_gemm_csv(std::string_view text,
                                                                       const std::string& file,
                                                                       const std::string& device) {
  std::vector<GemmMeasurement> out;
  std::optional<Columns> cols;
  std::size_t header_fields = 0;
  std::set<std::string> devices;
  for (const auto& [line_no, fields] : csv_lines(text)) {
    if (!cols) {
      if (auto e = duplicate_column(fields)) return fmt::format("{}:{}: {}", file, line_no, *e);
      auto c = find_columns(fields);
      if (auto* e = std::get_if<std::string>(&c))
        return fmt::format("{}:{}: {}", file, line_no, *e);
      cols = std::get<Columns>(c);
      header_fields = fields.size();
      continue;
    }
    if (auto e = extra_fields(fields, header_fields))
      return fmt::format("{}:{}: {}", file, line_no, *e);
    // A short row is an error whichever device it names (found by review, 2026-11-28: a bare
    // "garbage" line was skipped as another device's row).
    if (std::string e = short_row(fields, *cols); !e.empty())
      return fmt::format("{}:{}: {}", file, line_no, e);
    if (cols->device >= 0) {
      if (!device_matches(fields[cols->device], device)) continue;
      devices.insert(fields[cols->device]);
    }
    auto row = parse_row(fields, *cols);
    if (auto* e = std::get_if<std::string>(&row))
      return fmt::format("{}:{}: {}", file, line_no, *e);
    out.push_back(std::get<GemmMeasurement>(row));
    out.back().line = line_no;
  }
  if (auto e = device_rows_error(file, devices, out.size(), 1, "no GEMM rows", device)) return *e;
  return out;
}

std::variant<std::vector<GemmPoint>, std::string> gemm_points(
    const std::vector<GemmMeasurement>& rows, const PeakFlops& peak, const std::string& file,
    double max_spread) {
  std::vector<GemmPoint> out;
  std::vector<int> rows_in;  // rows averaged into out[i]
  struct Extreme {
    double eff;
    int line;
  };
  std::vector<std::pair<Extreme, Extreme>> spread;  // out[i]'s slowest and fastest rows
  for (const auto& r : rows) {
    const auto [peak_name, p] = peak_of(peak, r.dtype);
    if (p <= 0) return fmt::format("{}:{}: the base profile has no {} peak", file, r.line, r.dtype);
    const double eff = r.flops_per_second / p;
    if (eff > 1)
      return fmt::format(
          "{}:{}: {:.1f} TFLOP/s exceeds the base profile's {} peak {:.1f} TFLOP/s "
          "(wrong --base or --gemm-device?)",
          file, r.line, r.flops_per_second / kTera, peak_name, p / kTera);
    const auto same = std::ranges::find_if(out, [&](const GemmPoint& q) {
      return q.dtype == r.dtype && q.m == r.m && q.n == r.n && q.k == r.k;
    });
    if (same == out.end()) {
      out.push_back({r.dtype, r.m, r.n, r.k, eff});
      rows_in.push_back(1);
      spread.push_back({{eff, r.line}, {eff, r.line}});
      continue;
    }
    const std::size_t k = std::size_t(same - out.begin());
    // Rows of one shape are repeats (or batches folded into m) and are averaged; rows spanning
    // more than max_spread are not one measurement (found by review, 2026-11-28: 1011 and 100
    // TFLOP/s at 2048^3 were averaged to a point matching neither).
    auto& [lo, hi] = spread[k];
    if (eff < lo.eff) lo = {eff, r.line};
    if (eff > hi.eff) hi = {eff, r.line};
    if (max_spread > 0 && hi.eff > max_spread * lo.eff)
      return fmt::format(
          "{}:{}: {} {:g}x{:g}x{:g} runs at {:.1f} TFLOP/s on line {} and {:.1f} on line {}, more "
          "than {:g}x apart for one shape",
          file, r.line, r.dtype, r.m, r.n, r.k, lo.eff * p / kTera, lo.line, hi.eff * p / kTera,
          hi.line, max_spread);
    int& count = rows_in[k];
    same->efficiency = (same->efficiency * count + eff) / (count + 1);  // running mean
    ++count;
  }
  return out;
}

GemmMerge merge_gemm_points(std::vector<GemmPoint>& points, const std::vector<GemmPoint>& fresh,
                            const std::string& file, std::map<std::string, std::string>& seen) {
  GemmMerge out;
  for (const GemmPoint& p : fresh) {
    // Shortest exact digits: "{:g}" keeps 6 and made 1048576 and 1048580 one shape (review).
    const std::string key = fmt::format("{} {}x{}x{}", p.dtype, p.m, p.n, p.k);
    const auto same = std::ranges::find_if(points, [&](const GemmPoint& q) {
      return q.dtype == p.dtype && q.m == p.m && q.n == p.n && q.k == p.k;
    });
    const auto earlier = seen.find(key);
    if (same == points.end()) {
      points.push_back(p);
    } else if (earlier == seen.end()) {
      *same = p;  // the base's point of this shape: the new measurement replaces it
      ++out.replaced;
    } else {
      out.repeats.push_back(fmt::format(
          "{} is also in {} ({:.1f} % of the peak here, {:.1f} % there): kept the faster", key,
          earlier->second, p.efficiency * 100, same->efficiency * 100));
      same->efficiency = std::max(same->efficiency, p.efficiency);
    }
    seen.emplace(key, file);
  }
  return out;
}

std::vector<double> gemm_leave_one_out_pct(const std::vector<GemmPoint>& points) {
  std::vector<double> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    ComputeModel others;
    for (std::size_t j = 0; j < points.size(); ++j)
      if (j != i && points[j].dtype == points[i].dtype) others.gemm_points.push_back(points[j]);
    if (others.gemm_points.empty()) continue;
    const auto& p = points[i];
    const auto dtype = dtype_from_name(p.dtype);
    if (!dtype) continue;
    const double predicted = *measured_gemm_efficiency(others, p.m, p.n, p.k, *dtype);
    out.push_back(std::abs(predicted - p.efficiency) / p.efficiency * 100);
  }
  return out;
}

DeviceFits fit_device(const nlohmann::json& samples) {
  DeviceFits f;
  // (kernel, bytes) -> the rates measured (several ranks or repeats of one item)
  std::map<std::pair<std::string, double>, std::vector<double>> rates;
  std::vector<double> launches;
  int index = 0;
  double largest_copy = -1;  // bytes of the copy item whose rate is kept
  for (const auto& item : samples.at("items")) {
    const std::string kind = item.at("kind");
    const auto& d = item.at("derived");
    const auto& p = item.at("params");
    if (kind == "gemm") {
      // tf32 items are a table of their own (fp32 with training.tf32); fp32 items are SGEMM
      // rates (TF32 math off: PyTorch's matmul default, the composite run).
      const double rate = d.at("flops_per_second");
      const std::string dtype = canonical_dtype(p.at("dtype")).value_or("fp32");
      f.gemms.push_back({dtype, p.at("m"), p.at("n"), p.at("k"), rate, index});
      if (dtype == "fp32") f.best_gemm_fp32 = std::max(f.best_gemm_fp32, rate);
    } else if (kind == "memory_bound") {
      const double bytes = item.at("work").at("bytes"), rate = d.at("bytes_per_second");
      const std::string op = p.value("op", "");
      rates[{memory_kernel_from_name(op) ? op : "", bytes}].push_back(rate);
      f.hbm_bytes_per_second = std::max(f.hbm_bytes_per_second, rate);
    } else if (kind == "launch") {
      launches.push_back(d.at("seconds_per_launch"));
    } else if (kind == "copy" && p.value("direction", "") != "device_to_device") {
      // Device-to-device copies are HBM traffic, not the host link (found on the first GPU run,
      // 2026-11-27: the quick sweep's largest device copy, 256 MiB at 2.04 TB/s, was taken for
      // PCIe, whose pinned copies ran at 55 GB/s).
      // The rate at the largest copy: a small one is latency- or cache-bound (found by review,
      // 2026-11-27: the CPU's 4 KiB memcpy, in cache, ran at 124.6 GB/s against 13 GB/s at
      // 16 MiB, and offload was priced from it).
      const double bytes = item.at("work").at("bytes"), rate = d.at("bytes_per_second");
      if (bytes > largest_copy || (bytes == largest_copy && rate > f.copy_bytes_per_second)) {
        largest_copy = bytes;
        f.copy_bytes_per_second = rate;
      }
    }
    ++index;
  }
  // One curve per kernel class: efficiency(bytes) = median rate / best; the map's order gives
  // kernels by name, each in ascending bytes.
  double sum_sq = 0;
  std::size_t n = 0;
  std::vector<double> efficiencies;
  for (const auto& [key, rs] : rates) {
    const double mid = median(rs);
    f.memory_bound_points.push_back(
        {key.second, std::max(1e-4, mid / f.hbm_bytes_per_second), key.first});
    efficiencies.push_back(f.memory_bound_points.back().efficiency);
    for (const double r : rs) sum_sq += std::pow(r / mid - 1, 2), ++n;
  }
  if (!efficiencies.empty()) f.memory_bound_efficiency = median(efficiencies);
  if (n > 0) f.memory_bound_residual = std::sqrt(sum_sq / double(n));
  if (!launches.empty()) f.launch_overhead_s = median(launches);
  return f;
}

std::vector<std::string> implausible_gemm_points(const std::vector<GemmPoint>& points,
                                                 const std::string& device) {
  // Per dtype, the fastest large point (std::map: dtypes in name order, for stable output).
  std::map<std::string, const GemmPoint*> best;
  for (const auto& p : points) {
    if (std::min({p.m, p.n, p.k}) < kPlausibleGemmDim) continue;
    const GemmPoint*& b = best[p.dtype];
    if (b == nullptr || p.efficiency > b->efficiency) b = &p;
  }
  std::vector<std::string> out;
  for (const auto& [dtype, p] : best) {
    if (p->efficiency >= kImplausibleEfficiency) continue;
    out.push_back(fmt::format(
        "{} GEMMs: the fastest measured product with m, n and k of at least 2048 ({:g} x {:g} x "
        "{:g}) runs at {:.3g} % of {}'s {} peak, where GPUs reach 50-90 %: check the table's "
        "FLOP/s unit (tflops is 1e12 FLOP/s) and that it was measured on this device",
        dtype, p->m, p->n, p->k, 100 * p->efficiency, device, dtype));
  }
  return out;
}

std::optional<std::string> implausible_efficiency(double efficiency, const std::string& what,
                                                  const std::string& unit_hint) {
  if (efficiency >= kImplausibleEfficiency) return std::nullopt;
  return fmt::format("{} {:.3g} %: no GPU runs so far below its datasheet; check {}", what,
                     100 * efficiency, unit_hint);
}

}  // namespace shardsim::calibrate
