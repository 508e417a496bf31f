// STAND-IN profile fit for validation tests (contract in cpu_profile_for_validation.h).
#include "calibrate/cpu_profile_for_validation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "calibrate/linear_fit.h"
#include "simulator/cost/collective.h"

namespace shardsim::calibrate {
namespace {

using nlohmann::json;

// Verified items of `kind` with a positive median.
std::vector<json> items_of(const json& samples, const std::string& kind) {
  std::vector<json> out;
  for (const auto& it : samples.at("items"))
    if (it.value("kind", "") == kind && it.value("verified", false) &&
        it.value("median_s", 0.0) > 0)
      out.push_back(it);
  return out;
}

double launch_overhead(const json& samples) {
  std::vector<double> v;
  for (const auto& it : items_of(samples, "launch"))
    v.push_back(it.at("derived").at("seconds_per_launch").get<double>());
  return v.empty() ? 0.0 : median(v);
}

// Seconds of the work itself: median minus the launch overhead, floored at half the median.
double work_seconds(const json& it, double launch) {
  const double t = it.at("median_s").get<double>();
  return std::max(0.5 * t, t - launch);
}

void fit_gemms(const json& samples, GpuProfile& g) {
  const auto items = items_of(samples, "gemm");
  if (items.empty()) throw std::invalid_argument("samples: no verified gemm item");
  const double launch = g.compute.launch_overhead_s;
  double peak = 0;
  for (const auto& it : items)
    peak = std::max(peak, it.at("work").at("flops").get<double>() / work_seconds(it, launch));
  g.peak.fp32 = g.peak.fp16 = g.peak.bf16 = peak;
  std::map<std::tuple<double, double, double>, std::vector<double>> by_shape;
  for (const auto& it : items) {
    const auto& p = it.at("params");
    const double eff = it.at("work").at("flops").get<double>() / work_seconds(it, launch) / peak;
    by_shape[{p.at("m").get<double>(), p.at("n").get<double>(), p.at("k").get<double>()}].push_back(
        eff);
  }
  g.compute.kind = "measured";
  for (const auto& [shape, effs] : by_shape) {
    double sum = 0;
    for (const double e : effs) sum += e;
    const auto [m, n, k] = shape;
    g.compute.gemm_points.push_back({"fp32", m, n, k, sum / double(effs.size())});
  }
}

void fit_memory_bound(const json& samples, GpuProfile& g) {
  const auto items = items_of(samples, "memory_bound");
  if (items.empty()) throw std::invalid_argument("samples: no verified memory_bound item");
  const double launch = g.compute.launch_overhead_s;
  struct Mix {
    double bytes = 0, seconds = 0;
    int ops = 0;
  };
  std::map<std::pair<double, double>, Mix> by_shape;
  double hbm = 0;
  for (const auto& it : items) {
    const double bytes = it.at("work").at("bytes").get<double>(), t = work_seconds(it, launch);
    hbm = std::max(hbm, bytes / t);
    Mix& mix = by_shape[{it.at("params").at("rows").get<double>(),
                         it.at("params").at("cols").get<double>()}];
    mix.bytes += bytes, mix.seconds += t, ++mix.ops;
  }
  g.hbm_bytes_per_second = hbm;
  std::vector<MemoryBoundPoint> points;
  for (const auto& [shape, mix] : by_shape)
    points.push_back({mix.bytes / mix.ops, mix.bytes / mix.seconds / hbm});
  std::sort(points.begin(), points.end(),
            [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  for (const auto& p : points)  // strictly ascending bytes (two shapes of equal size: keep one)
    if (g.compute.memory_bound_points.empty() ||
        p.bytes > g.compute.memory_bound_points.back().bytes)
      g.compute.memory_bound_points.push_back(p);
  g.compute.memory_bound_efficiency = g.compute.memory_bound_points.back().efficiency;
}

void fit_collectives(const json& samples, GpuProfile& g) {
  std::map<std::tuple<std::string, int, int>, std::vector<Sample>> groups;
  std::map<std::tuple<std::string, int, int>, double> bus_factor;  // x = factor * S
  for (const auto& it : items_of(samples, "collective")) {
    const auto& p = it.at("params");
    const double factor = it.at("work").value("busbw_factor", 1.0);
    // The samples' names (all_to_all, send_recv) in the profile's nccl-tests spelling.
    const auto op = collective_from_name(p.at("op").get<std::string>());
    if (!op) continue;
    const std::tuple<std::string, int, int> key{collective_name(*op), p.at("ranks").get<int>(),
                                                p.at("ranks_per_node").get<int>()};
    bus_factor[key] = factor;
    groups[key].push_back(
        {factor * it.at("work").at("bytes").get<double>(), it.at("median_s").get<double>()});
  }
  NetworkConfig net;
  net.name = "cpu-shared-memory";
  net.description = "MPI over shared memory between the ranks of one host (fitted)";
  for (auto& [key, pts] : groups) {
    std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
    const LineFit f = fit_line(pts);
    if (!std::isfinite(f.beta) || !(f.beta > 0)) continue;  // time did not grow with size
    const auto& [op, ranks, rpn] = key;
    net.fitted_collectives.push_back({op, ranks, rpn, f.alpha, f.beta,
                                      pts.front().x / bus_factor[key],
                                      pts.back().x / bus_factor[key]});
    g.provenance.residuals["collective/" + op + "/g" + std::to_string(ranks)] = f.residual;
    if (op == "all_reduce" && net.intra_node_GBps == 0) {
      net.intra_node_GBps = f.beta / 1e9;
      net.intra_node_latency_us = f.alpha * 1e6;
    }
  }
  if (net.intra_node_GBps <= 0) net.intra_node_GBps = g.hbm_bytes_per_second / 1e9;
  net.inter_node_Gbps = net.intra_node_GBps * 8;  // one host: never used across nodes
  net.inter_node_latency_us = net.intra_node_latency_us;
  g.network = net;
}

}  // namespace

GpuProfile cpu_profile_for_validation(const json& samples, double memory_bytes,
                                      const std::string& source) {
  GpuProfile g;
  g.name = "cpu-validation-profile";
  g.description = "the CPU as a device, fitted from a cpu calibration sweep (validation stand-in)";
  g.memory_bytes = memory_bytes;
  g.compute.launch_overhead_s = launch_overhead(samples);
  fit_gemms(samples, g);
  fit_memory_bound(samples, g);
  double copy = 0;
  for (const auto& it : items_of(samples, "copy"))
    copy = std::max(copy, it.at("derived").at("bytes_per_second").get<double>());
  g.pcie_bytes_per_second = copy > 0 ? copy : g.hbm_bytes_per_second;
  const auto& mpi = samples.at("context").value("mpi", json::object());
  g.default_gpus_per_node = std::max(1, mpi.value("ranks_per_node", 1));
  fit_collectives(samples, g);
  g.provenance.fitted = true;
  g.provenance.sources.push_back(
      {source, 0, 0, samples.at("context").value("date_utc", ""), "cpu calibration samples"});
  g.provenance.note =
      "calibrate/cpu_profile_for_validation: stand-in for profile_from_samples (tests of "
      "shardsim validate)";
  return g;
}

}  // namespace shardsim::calibrate
