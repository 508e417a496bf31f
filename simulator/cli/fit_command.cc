// shardsim fit: builds or updates a hardware profile from nccl-tests logs, GEMM CSVs and
// calibration samples (the fits are in calibrate/), prints a fit report, writes the profile.
#include "simulator/cli/fit_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "calibrate/collective_fit.h"
#include "calibrate/compute_fit.h"
#include "calibrate/profile_fit.h"
#include "calibrate/topology_fit.h"
#include "reports/output.h"
#include "simulator/core/diagnostics.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/presets.h"

namespace shardsim::cli {
namespace {

namespace cal = shardsim::calibrate;
using nlohmann::json;

std::string read_text(const std::string& path, const std::string& flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(flag, fmt::format("cannot read \"{}\"", path));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One fitted log in the report.
struct LogReport {
  cal::MeasuredCollective rows;
  cal::CollectiveFit fit;
  double held_out_pct = -1;  // -1: fewer than 4 rows
};

std::vector<cal::MeasuredCollective> load_log(const std::string& path, const FitArgs& a,
                                              int gpus_per_node) {
  const std::string text = read_text(path, "--nccl-tests");
  auto parsed = parse_nccl_tests_log(text, path);
  if (auto* e = std::get_if<NcclTestsError>(&parsed)) throw InputError("--nccl-tests", e->text());
  auto m = cal::measured_collectives(std::get<NcclTestsLog>(parsed), {a.ranks, gpus_per_node});
  if (auto* e = std::get_if<std::string>(&m)) throw InputError("--nccl-tests", *e);
  return std::get<std::vector<cal::MeasuredCollective>>(m);
}

// Replaces the base network's entries of the same key by the new segments.
void merge_fitted(NetworkConfig& net, const std::vector<FittedCollective>& fresh) {
  std::erase_if(net.fitted_collectives, [&](const FittedCollective& f) {
    return std::ranges::any_of(fresh, [&](const FittedCollective& g) {
      return g.op == f.op && g.ranks == f.ranks && g.ranks_per_node == f.ranks_per_node;
    });
  });
  net.fitted_collectives.insert(net.fitted_collectives.end(), fresh.begin(), fresh.end());
}

// Two measured collectives of the same (op, ranks, ranks_per_node) would each replace the
// other's segments in merge_fitted: refuse instead of silently keeping the last.
void check_distinct_keys(const std::vector<cal::MeasuredCollective>& all) {
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const auto &a = all[j], &b = all[i];
      if (a.op == b.op && a.ranks == b.ranks && a.ranks_per_node == b.ranks_per_node)
        throw InputError(
            "--nccl-tests",
            fmt::format("{} (line {}) and {} (line {}) both measure {} on {} ranks, {} per node; "
                        "give one log per (op, ranks, ranks per node)",
                        a.file, a.lines.front(), b.file, b.lines.front(), a.op, a.ranks,
                        a.ranks_per_node));
    }
}

NetworkConfig base_network(const GpuProfile& g) {
  if (g.network) return *g.network;
  if (g.default_network.empty()) return NetworkConfig{};
  const auto preset = find_preset(PresetKind::kCluster, g.default_network);
  if (!preset)
    throw InputError("--base", fmt::format("default_network \"{}\" is not a known network preset",
                                           g.default_network));
  NetworkConfig n;
  Diagnostics d;
  read_network_config(*preset, "", d, n);
  if (!d.empty())
    throw InputError("--base",
                     fmt::format("network preset \"{}\": {}", g.default_network, d.format()));
  return n;
}

// A fit of finite rows can still be 0/0 (times so large that 1/t^2 underflows): refuse it
// before anything prints a NaN.
void check_finite(const LogReport& r) {
  bool ok = std::isfinite(r.fit.residual) && std::isfinite(r.held_out_pct);
  for (const auto& s : r.fit.segments)
    ok = ok && std::isfinite(s.entry.alpha_s) && std::isfinite(s.entry.busbw_bytes_per_second) &&
         std::isfinite(s.residual);
  if (!ok)
    throw InputError("--nccl-tests",
                     fmt::format("{}: lines {}-{}: the times ({:g} .. {:g} s) give no finite "
                                 "latency/bandwidth fit; check the time column",
                                 r.rows.file, r.rows.lines.front(), r.rows.lines.back(),
                                 r.rows.seconds.front(), r.rows.seconds.back()));
}

void check_finite(const cal::TopologyFit& t, const std::vector<cal::MeasuredCollective>& logs) {
  bool ok = std::isfinite(t.residual);
  for (const auto& e : t.errors) ok = ok && std::isfinite(e.median_pct) && std::isfinite(e.max_pct);
  std::set<std::string> files;
  for (const auto& m : logs) files.insert(m.file);
  if (!ok)
    throw InputError("--nccl-tests",
                     fmt::format("the times of {} give no finite topology fit; check their time "
                                 "columns",
                                 fmt::join(files, ", ")));
}

json report_json(const std::vector<LogReport>& logs, const cal::TopologyFit* topo) {
  json out = {{"logs", json::array()}};
  for (const auto& l : logs) {
    json segs = json::array();
    for (const auto& s : l.fit.segments)
      segs.push_back({{"min_bytes", s.entry.min_bytes},
                      {"max_bytes", s.entry.max_bytes},
                      {"alpha_s", s.entry.alpha_s},
                      {"busbw_bytes_per_second", s.entry.busbw_bytes_per_second},
                      {"residual", s.residual},
                      {"rows", s.points}});
    out["logs"].push_back({{"file", l.rows.file},
                           {"op", l.rows.op},
                           {"ranks", l.rows.ranks},
                           {"ranks_per_node", l.rows.ranks_per_node},
                           {"rows", l.rows.bytes.size()},
                           {"residual", l.fit.residual},
                           {"held_out_median_abs_pct_error",
                            l.held_out_pct < 0 ? json(nullptr) : json(l.held_out_pct)},
                           {"segments", segs}});
  }
  if (topo) {
    out["topology"] = {{"residual", topo->residual}, {"logs", json::array()}};
    for (const auto& e : topo->errors)
      out["topology"]["logs"].push_back({{"file", e.file},
                                         {"median_abs_pct_error", e.median_pct},
                                         {"max_abs_pct_error", e.max_pct}});
  }
  return out;
}

std::string report_text(const std::vector<LogReport>& logs, const cal::TopologyFit* topo) {
  std::string t;
  for (const auto& l : logs) {
    t += fmt::format(
        "{}: {} {} ranks, {} per node, {} rows, residual {:.1f}%, held-out median "
        "error {}\n",
        l.rows.file, l.rows.op, l.rows.ranks, l.rows.ranks_per_node, l.rows.bytes.size(),
        l.fit.residual * 100, l.held_out_pct < 0 ? "n/a" : fmt::format("{:.2f}%", l.held_out_pct));
    for (const auto& s : l.fit.segments)
      t += fmt::format(
          "  {:>12g} - {:<12g} B  alpha {:9.2f} us  busbw {:8.2f} GB/s  residual "
          "{:.1f}%\n",
          s.entry.min_bytes, s.entry.max_bytes, s.entry.alpha_s * 1e6,
          s.entry.busbw_bytes_per_second / 1e9, s.residual * 100);
  }
  if (topo) {
    t += fmt::format("topology model (all logs jointly): RMS log error {:.3f}\n", topo->residual);
    for (const auto& e : topo->errors)
      t += fmt::format("  {}: median {:.1f}%, max {:.1f}%\n", e.file, e.median_pct, e.max_pct);
  }
  return t;
}

void check_args(const FitArgs& a) {
  if (a.nccl_logs.empty() && a.gemm_csvs.empty() && a.samples.empty())
    throw InputError("", "nothing to fit: give --nccl-tests, --gemm or --samples");
  if (a.base.empty() && a.samples.empty())
    throw InputError("--base",
                     "is required without --samples (a GPU preset or profile JSON to "
                     "update)");
  if (a.ranks < 0) throw InputError("--ranks", fmt::format("must be >= 1, got {}", a.ranks));
  if (a.gpus_per_node < 0)
    throw InputError("--gpus-per-node", fmt::format("must be >= 1, got {}", a.gpus_per_node));
}

void fit_samples(const FitArgs& a, GpuProfile& g) {
  for (const auto& path : a.samples) {
    json doc;
    try {
      doc = json::parse(read_text(path, "--samples"));
      g = cal::profile_from_samples(doc, g, {path, cal::samples_memory_bytes(doc)});
    } catch (const json::exception& e) {
      throw InputError("--samples", fmt::format("{}: {}", path, e.what()));
    } catch (const std::invalid_argument& e) {
      throw InputError("--samples", e.what());
    }
  }
}

void fit_gemms(const FitArgs& a, GpuProfile& g) {
  for (const auto& path : a.gemm_csvs) {
    auto rows = cal::parse_gemm_csv(read_text(path, "--gemm"), path, a.gemm_device);
    if (auto* e = std::get_if<std::string>(&rows)) throw InputError("--gemm", *e);
    const auto& measured = std::get<std::vector<cal::GemmMeasurement>>(rows);
    auto points = cal::gemm_points(measured, g.peak, path);
    if (auto* e = std::get_if<std::string>(&points)) throw InputError("--gemm", *e);
    const auto& p = std::get<std::vector<GemmPoint>>(points);
    g.compute.kind = "measured";
    g.compute.gemm_points.insert(g.compute.gemm_points.end(), p.begin(), p.end());
    g.provenance.sources.push_back({path, measured.front().line, measured.back().line, "",
                                    "GEMM efficiency points (FLOP/s / the profile's dtype peak)"});
  }
}

}  // namespace

GpuProfile load_profile(const std::string& spec, const std::string& flag) {
  json j;
  if (auto preset = find_preset(PresetKind::kGpu, spec)) {
    j = *preset;
  } else {
    if (!std::filesystem::exists(spec)) throw_unknown_preset(PresetKind::kGpu, spec, flag);
    try {
      j = read_json_file(spec);
    } catch (const InputError& e) {
      throw InputError(flag, e.items().front().message);
    }
  }
  GpuProfile g;
  Diagnostics d;
  read_gpu_profile(j, "", d, g);
  if (!d.empty()) throw InputError(flag, spec + ": " + d.format());
  return g;
}

namespace {

// The measurements' files, for messages: "--nccl-tests a.log, --gemm b.csv".
std::string inputs_text(const FitArgs& a) {
  std::string out;
  const auto add = [&](const char* flag, const std::vector<std::string>& files) {
    for (const auto& f : files) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", flag, f);
  };
  add("--nccl-tests", a.nccl_logs);
  add("--gemm", a.gemm_csvs);
  add("--samples", a.samples);
  return out;
}

// The fitted profile must read back: a value outside the reader's ranges comes from the
// measurements (a GEMM rate far below the peak, absurd times), so it is bad input, not a bug.
void check_fitted(const FitArgs& a, const GpuProfile& g) {
  GpuProfile back;
  Diagnostics d;
  read_gpu_profile(to_json(g), "", d, back);
  if (d.empty()) return;
  std::vector<Diagnostic> items;
  for (const auto& e : d.items())
    items.push_back({"", fmt::format("{}: the measurements give a profile outside the accepted "
                                     "ranges: {}: {}",
                                     inputs_text(a), e.path, e.message)});
  throw InputError(items);
}

}  // namespace

void write_profile(const GpuProfile& g, const std::string& path) {
  const json j = to_json(g);
  GpuProfile back;
  Diagnostics d;
  read_gpu_profile(j, "", d, back);
  if (!d.empty())
    throw std::runtime_error("the fitted profile does not pass its own checks:\n" + d.format());
  write_output(path, j.dump(2) + "\n");
}

// A fitted profile says so everywhere a report looks: fitted, a note naming what was fitted and
// what kept the base's values, and a name that is not the base preset's (a report naming
// "a100-sxm-80gb" must mean the datasheet preset).
void mark_fitted(const FitArgs& a, const std::string& base_name, GpuProfile& g) {
  g.provenance.fitted = true;
  std::string what =
      fmt::format("{} nccl-tests log(s), {} GEMM table(s), {} calibration sample file(s)",
                  a.nccl_logs.size(), a.gemm_csvs.size(), a.samples.size());
  g.provenance.note =
      base_name.empty() ? "fitted by shardsim fit from " + what
                        : fmt::format(
                              "fitted by shardsim fit from {} onto base profile '{}'; values these "
                              "measurements do not cover keep the base's",
                              what, base_name);
  if (!base_name.empty() && g.name == base_name) g.name = base_name + "-fitted";
}

int run_fit(const FitArgs& a) {
  check_args(a);
  GpuProfile g = a.base.empty() ? GpuProfile{} : load_profile(a.base, "--base");
  const std::string base_name = a.base.empty() ? std::string() : g.name;
  fit_samples(a, g);
  fit_gemms(a, g);
  const int per_node = a.gpus_per_node > 0 ? a.gpus_per_node : g.default_gpus_per_node;
  std::vector<LogReport> logs;
  std::vector<cal::MeasuredCollective> all;
  for (const auto& path : a.nccl_logs)
    for (auto& m : load_log(path, a, per_node)) all.push_back(std::move(m));
  check_distinct_keys(all);
  NetworkConfig net = base_network(g);
  std::optional<cal::TopologyFit> topo;
  if (!all.empty()) {
    topo = cal::fit_topology(all, net);
    check_finite(*topo, all);
    net = topo->net;
    // A refitted network is not the base's any more (a report naming the base network must mean
    // the preset's values).
    if (net.name.empty())
      net.name = "fitted";
    else if (!net.name.ends_with("-fitted"))
      net.name += "-fitted";
    Provenance prov{true, {}, {}, {}, "fitted by shardsim fit from nccl-tests logs"};
    for (const auto& m : all) {
      LogReport r{m, cal::fit_collective(m),
                  m.bytes.size() >= 4 ? cal::held_out_median_pct(m) : -1.0};
      check_finite(r);
      merge_fitted(net, cal::entries(r.fit));
      const std::string name = fmt::format("{}:{}/{}x{}", m.file, m.op, m.ranks, m.ranks_per_node);
      prov.sources.push_back({m.file, m.lines.front(), m.lines.back(), "", name});
      prov.fit_ranges.push_back({name + " bytes", m.bytes.front(), m.bytes.back(), "bytes"});
      prov.residuals[name] = r.fit.residual;
      logs.push_back(std::move(r));
    }
    net.provenance = prov;
    g.network = net;
  }
  mark_fitted(a, base_name, g);
  check_fitted(a, g);
  const auto* t = topo ? &*topo : nullptr;
  std::cout << (a.json ? report_json(logs, t).dump(2) + "\n" : report_text(logs, t));
  write_profile(g, a.output);
  return kExitOk;
}

}  // namespace shardsim::cli
