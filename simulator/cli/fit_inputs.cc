#include "simulator/cli/fit_inputs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "calibrate/bandwidth_fit.h"
#include "calibrate/compute_fit.h"
#include "calibrate/linear_fit.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"

namespace shardsim::cli {
namespace {

namespace cal = shardsim::calibrate;
using nlohmann::json;

std::vector<cal::GemmMeasurement> read_gemm_rows(const std::string& path, const std::string& flag,
                                                 const std::string& device) {
  auto rows = cal::parse_gemm_csv(read_input(path, flag), path, device);
  if (auto* e = std::get_if<std::string>(&rows)) throw InputError(flag, *e);
  return std::get<std::vector<cal::GemmMeasurement>>(rows);
}

std::vector<GemmPoint> to_points(const std::vector<cal::GemmMeasurement>& rows,
                                 const PeakFlops& peak, const std::string& path,
                                 const std::string& flag) {
  auto points = cal::gemm_points(rows, peak, path);
  if (auto* e = std::get_if<std::string>(&points)) throw InputError(flag, *e);
  return std::get<std::vector<GemmPoint>>(points);
}

// "fp16: 8 points, 38.3-82.2% of peak"
std::string point_summary(const std::vector<GemmPoint>& points) {
  std::map<std::string, std::vector<double>> by_dtype;
  for (const auto& p : points) by_dtype[p.dtype].push_back(p.efficiency);
  std::string out;
  for (const auto& [dtype, effs] : by_dtype) {
    const auto [lo, hi] = std::ranges::minmax(effs);
    out += fmt::format("{}{}: {} points, {:.1f}-{:.1f}% of peak", out.empty() ? "" : "; ", dtype,
                       effs.size(), lo * 100, hi * 100);
  }
  return out;
}

bool has_points(const GpuProfile& g, const std::string& dtype) {
  return std::ranges::any_of(g.compute.gemm_points,
                             [&](const GemmPoint& p) { return p.dtype == dtype; });
}

}  // namespace

void FitNotes::add(json item, const std::string& line) {
  items.push_back(std::move(item));
  text += line + "\n";
}

void FitNotes::warn(json& item, const std::string& file, const std::vector<std::string>& found) {
  for (const auto& w : found) {
    item["warnings"].push_back(w);
    warnings.push_back(file + ": " + w);
  }
}

std::string read_input(const std::string& path, const std::string& flag) {
  // read_text_file names a missing file, a directory (found by review: a directory read as an
  // empty log, "dir:0: no nccl-tests data rows found") and an unreadable one. 64 MiB at most:
  // the largest shipped log (16 ranks with NCCL's debug lines) is 0.3 MB, a 2,160-rank one 0.2
  // MB; 1 GiB (until 2026-11-28) let `--nccl-tests /dev/zero` take 2.2 GB of memory first.
  return read_text_file(path, std::uintmax_t{64} << 20, flag);
}

void fit_gemm_tables(const std::vector<std::string>& files, const MeasuredDevice& on, GpuProfile& g,
                     FitNotes& notes) {
  std::map<std::string, std::string> seen;  // shapes of the tables so far, and their tables
  for (const auto& path : files) {
    const auto rows = read_gemm_rows(path, "--gemm", on.device);
    const auto points = to_points(rows, on.profile.peak, path, "--gemm");
    g.compute.kind = "measured";
    const cal::GemmMerge merge =
        cal::merge_gemm_points(g.compute.gemm_points.edit(), points, path, seen);
    index_gemm_points(g.compute);
    g.provenance.sources.push_back(
        {path, rows.front().line, rows.back().line, "",
         "GEMM efficiency points (FLOP/s / the dtype's dense peak of " + on.profile.name + ")"});
    // Leave-one-out over this table's points: how well the interpolation predicts a shape it
    // was not given.
    const auto loo = cal::gemm_leave_one_out_pct(points);
    const double mid = loo.empty() ? 0 : cal::median(loo);
    const double worst = loo.empty() ? 0 : *std::ranges::max_element(loo);
    if (!loo.empty()) g.provenance.residuals["gemm leave-one-out median " + path] = mid / 100;
    json item = {{"input", "gemm"},
                 {"file", path},
                 {"rows", rows.size()},
                 {"points", point_summary(points)},
                 {"leave_one_out_median_abs_pct_error", loo.empty() ? json(nullptr) : json(mid)},
                 {"leave_one_out_max_abs_pct_error", loo.empty() ? json(nullptr) : json(worst)}};
    item["replaced_base_points"] = merge.replaced;
    notes.warn(item, path, cal::implausible_gemm_points(points, on.profile.name));
    notes.warn(item, path, merge.repeats);
    notes.add(item, fmt::format("{}: GEMM table, {} rows ({}); leave-one-out error median {:.1f}%, "
                                "max {:.1f}%{}",
                                path, rows.size(), point_summary(points), mid, worst,
                                merge.replaced == 0 ? ""
                                                    : fmt::format("; replaces {} of the base's "
                                                                  "points of the same shapes",
                                                                  merge.replaced)));
  }
}

void fit_gemm_best(const std::vector<std::string>& files, const MeasuredDevice& on, GpuProfile& g,
                   FitNotes& notes) {
  for (const auto& path : files) {
    const auto rows = read_gemm_rows(path, "--gemm-best", on.device);
    const auto points = to_points(rows, on.profile.peak, path, "--gemm-best");  // checks peaks
    // The fastest bf16 row, else the fastest fp16 one: a table of best shapes may list several
    // (found by review, 2026-11-27: the first row was taken, and rows of one shape averaged).
    const calibrate::GemmMeasurement* best = nullptr;
    for (const char* dtype : {"bf16", "fp16"}) {
      for (const auto& r : rows)
        if (r.dtype == dtype && (best == nullptr || r.flops_per_second > best->flops_per_second))
          best = &r;
      if (best) break;
    }
    std::string line =
        fmt::format("{}: best-shape table, {} rows ({})", path, rows.size(), point_summary(points));
    json item = {{"input", "gemm_best"}, {"file", path}, {"rows", rows.size()}};
    if (best) {
      const double efficiency =
          best->flops_per_second /
          (best->dtype == "bf16" ? on.profile.peak.bf16 : on.profile.peak.fp16);
      // Below the profile's 1 % floor: refused with the hint, not the schema's range message
      // (found by review, 2026-11-29); from 1 to 5 %, a warning below.
      if (efficiency < cal::kMinProfileEfficiency)
        throw InputError(
            "--gemm-best",
            fmt::format("{}:{}: the best-shape {} row runs at {:.3g} % of {}'s peak, "
                        "below the 1 % a profile accepts: check the table's FLOP/s "
                        "unit (tflops is 1e12 FLOP/s) and device",
                        path, best->line, best->dtype, 100 * efficiency, on.profile.name));
      g.compute.gemm_peak_efficiency = efficiency;
      g.provenance.sources.push_back(
          {path, best->line, best->line, "",
           fmt::format("compute.gemm_peak_efficiency {:.4f}: best-shape {} {}x{}x{} at {:.1f} "
                       "TFLOP/s / the dense peak of {}; the roofline of dtypes without measured "
                       "points",
                       efficiency, best->dtype, best->m, best->n, best->k,
                       best->flops_per_second / 1e12, on.profile.name)});
      item["gemm_peak_efficiency"] = efficiency;
      if (const auto w = cal::implausible_efficiency(
              efficiency, "compute.gemm_peak_efficiency (the best-shape GEMM's share of the peak)",
              "the table's FLOP/s unit (tflops is 1e12 FLOP/s) and device"))
        notes.warn(item, path, {*w});
      line += fmt::format(" -> compute.gemm_peak_efficiency {:.4f} ({} row, line {})", efficiency,
                          best->dtype, best->line);
    } else {
      line += " -> no bf16 or fp16 row: compute.gemm_peak_efficiency keeps the base's";
    }
    notes.add(item, line);
  }
}

void check_gemm_aliases(const std::vector<std::string>& aliases) {
  static const std::vector<std::string> kDtypes = {"fp32", "tf32", "fp16", "bf16", "fp8"};
  std::set<std::string> targets;
  for (const auto& a : aliases) {
    const auto eq = a.find('=');
    const std::string dst = a.substr(0, eq), src = eq == std::string::npos ? "" : a.substr(eq + 1);
    const auto known = [&](const std::string& d) { return std::ranges::count(kDtypes, d) > 0; };
    if (eq == std::string::npos || !known(dst) || !known(src) || dst == src)
      throw InputError("--gemm-alias", fmt::format("\"{}\": expected DST=SRC with two different "
                                                   "dtypes of fp32, tf32, fp16, bf16, fp8 (e.g. "
                                                   "bf16=fp16)",
                                                   a));
    // found by review, 2026-11-27: the second of two said "bf16 has measured points of its own"
    if (!targets.insert(dst).second)
      throw InputError("--gemm-alias",
                       fmt::format("\"{}\": {} is given a source twice; keep one", a, dst));
  }
}

void apply_gemm_aliases(const std::vector<std::string>& aliases, GpuProfile& g, FitNotes& notes) {
  for (const auto& a : aliases) {
    const auto eq = a.find('=');
    const std::string dst = a.substr(0, eq), src = a.substr(eq + 1);
    if (!has_points(g, src))
      throw InputError("--gemm-alias",
                       fmt::format("\"{}\": no measured {} points to copy", a, src));
    if (has_points(g, dst))
      throw InputError("--gemm-alias",
                       fmt::format("\"{}\": {} has measured points of its own", a, dst));
    std::vector<GemmPoint> copies;
    for (const auto& p : g.compute.gemm_points)
      if (p.dtype == src) copies.push_back({dst, p.m, p.n, p.k, p.efficiency});
    g.compute.gemm_points.insert(g.compute.gemm_points.end(), copies.begin(), copies.end());
    index_gemm_points(g.compute);
    g.provenance.sources.push_back(
        {"", 0, 0, "",
         fmt::format("compute.gemm_points of {} = the {} points ({}): same tensor cores at the "
                     "same dense peak ({:.4g} vs {:.4g} FLOP/s), no {} table measured",
                     dst, src, copies.size(), g.peak.for_dtype(*dtype_from_name(dst)),
                     g.peak.for_dtype(*dtype_from_name(src)), dst)});
    notes.add(
        {{"input", "gemm_alias"}, {"dtype", dst}, {"from", src}, {"points", copies.size()}},
        fmt::format("--gemm-alias {}: {} {} points copied as {}", a, copies.size(), src, dst));
  }
}

void fit_bandwidth_tables(const std::vector<std::string>& files, const MeasuredDevice& on,
                          GpuProfile& g, FitNotes& notes) {
  for (const auto& path : files) {
    auto rows = cal::parse_bandwidth_csv(read_input(path, "--hbm"), path, on.device);
    if (auto* e = std::get_if<std::string>(&rows)) throw InputError("--hbm", *e);
    const auto& m = std::get<std::vector<cal::BandwidthMeasurement>>(rows);
    // A table and --samples that both measured the device's memory-bound rate or its host copy
    // would each set it, and the table's efficiency was taken against the samples' rate (found
    // by review, 2026-11-29: a BabelStream triad against a samples document's HBM rate).
    for (const auto& row : m) {
      const bool host_copy =
          row.test == "nvbandwidth_host_to_device" || row.test == "nvbandwidth_device_to_host";
      if ((row.test == "babelstream_triad" && on.by_samples.contains("memory_bound")) ||
          (host_copy && on.by_samples.contains("copy")))
        throw InputError("--hbm",
                         fmt::format("{}:{}: {} measures what --samples measured of "
                                     "this device too ({}); give the table or the "
                                     "samples for it, not both",
                                     path, row.line, row.test,
                                     host_copy ? "its host copy rate" : "its memory-bound rate"));
    }
    auto fitted = cal::fit_bandwidth(m, on.profile.hbm_bytes_per_second, path);
    if (auto* e = std::get_if<std::string>(&fitted)) throw InputError("--hbm", *e);
    const auto& f = std::get<cal::BandwidthFit>(fitted);
    json item = {{"input", "hbm"}, {"file", path}, {"rows", m.size()}};
    std::string line = fmt::format("{}: bandwidth table, {} rows", path, m.size());
    if (f.memory_bound_efficiency > 0) {
      if (f.memory_bound_efficiency < cal::kMinProfileEfficiency)  // as for --gemm-best
        throw InputError(
            "--hbm",
            fmt::format("{}:{}: the triad runs at {:.3g} % of {}'s HBM bandwidth, "
                        "below the 1 % a profile accepts: check the table's unit "
                        "(GB/s is 1e9 B/s, TB/s 1e12) and device",
                        path, f.triad_line, 100 * f.memory_bound_efficiency, on.profile.name));
      g.compute.memory_bound_efficiency = f.memory_bound_efficiency;
      g.provenance.sources.push_back(
          {path, f.triad_line, f.triad_line, "",
           fmt::format("compute.memory_bound_efficiency {:.4f} = BabelStream triad {:.4g} TB/s / "
                       "HBM {:.4g} TB/s of {}",
                       f.memory_bound_efficiency, f.triad_bytes_per_second / 1e12,
                       on.profile.hbm_bytes_per_second / 1e12, on.profile.name)});
      item["memory_bound_efficiency"] = f.memory_bound_efficiency;
      if (const auto w = cal::implausible_efficiency(
              f.memory_bound_efficiency,
              "compute.memory_bound_efficiency (the triad's share of the HBM bandwidth)",
              "the table's bandwidth unit (GB/s is 1e9 B/s) and device"))
        notes.warn(item, path, {*w});
      line += fmt::format(" -> memory_bound_efficiency {:.4f} (triad {:.3g} TB/s)",
                          f.memory_bound_efficiency, f.triad_bytes_per_second / 1e12);
    }
    if (f.pcie_bytes_per_second > 0) {
      g.pcie_bytes_per_second = f.pcie_bytes_per_second;
      g.provenance.sources.push_back(
          {path, f.copy_line, f.copy_line, "",
           fmt::format("host.pcie_bytes_per_second {:.4g} = best host copy ({} {:.4g} GB/s) / "
                       "0.8, the model's copy efficiency (simulator/cost/collective.h)",
                       f.pcie_bytes_per_second, f.copy_test, f.copy_bytes_per_second / 1e9)});
      item["pcie_bytes_per_second"] = f.pcie_bytes_per_second;
      line +=
          fmt::format(" -> pcie_bytes_per_second {:.4g} GB/s ({} {:.4g} GB/s / 0.8)",
                      f.pcie_bytes_per_second / 1e9, f.copy_test, f.copy_bytes_per_second / 1e9);
    }
    notes.add(item, line);
  }
}

}  // namespace shardsim::cli
