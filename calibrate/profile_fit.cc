#include "calibrate/profile_fit.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "calibrate/collective_fit.h"
#include "calibrate/compute_fit.h"
#include "calibrate/topology_fit.h"
#include "simulator/cost/collective.h"

namespace shardsim::calibrate {
namespace {

using Key = std::tuple<std::string, int, int>;  // op, ranks, ranks_per_node

// Collective items grouped by (op, ranks, ranks_per_node), rows ascending by size.
std::vector<MeasuredCollective> collective_rows(const nlohmann::json& samples,
                                                const std::string& file) {
  std::map<Key, std::map<double, std::pair<double, int>>> groups;
  int index = 0;
  for (const auto& item : samples.at("items")) {
    ++index;
    if (item.at("kind") != "collective") continue;
    const auto& p = item.at("params");
    const auto op = collective_from_name(p.at("op").get<std::string>());
    const double bytes = p.at("bytes"), t = item.at("median_s");
    if (!op || bytes <= 0 || t <= 0) continue;
    const Key key{collective_name(*op), p.at("ranks"), p.at("ranks_per_node")};
    groups[key].emplace(bytes, std::pair{t, index});
  }
  std::vector<MeasuredCollective> out;
  for (const auto& [key, rows] : groups) {
    MeasuredCollective m{file, std::get<0>(key), std::get<1>(key), std::get<2>(key), {}, {}, {}};
    if (m.ranks < 2 || rows.size() < 2) continue;
    for (const auto& [bytes, tl] : rows) {
      m.bytes.push_back(bytes);
      m.seconds.push_back(tl.first);
      m.lines.push_back(tl.second);
    }
    out.push_back(std::move(m));
  }
  return out;
}

// A starting network for the topology fit from the collective fits: the best busbw and the
// smallest all_reduce latency, used for both levels (one-node sweeps measure no network).
NetworkConfig start_network(const std::vector<CollectiveFit>& fits, const GpuProfile& base) {
  NetworkConfig n = base.network.value_or(NetworkConfig{});
  double busbw = 0, alpha = 1;
  for (const auto& f : fits)
    for (const auto& s : f.segments) {
      busbw = std::max(busbw, std::min(s.entry.busbw_bytes_per_second, 1e13));
      if (s.entry.op == "all_reduce" && s.entry.alpha_s > 0)
        alpha = std::min(alpha, s.entry.alpha_s);
    }
  n.name = "calibrated";
  n.intra_node_GBps = busbw / 1e9;
  n.inter_node_Gbps = busbw * 8 / 1e9;
  n.intra_node_latency_us = alpha * 1e6;
  n.inter_node_latency_us = alpha * 1e6;
  return n;
}

void fit_network(const nlohmann::json& samples, const std::string& file, GpuProfile& g) {
  const auto rows = collective_rows(samples, file);
  if (rows.empty()) return;
  std::vector<CollectiveFit> fits;
  for (const auto& m : rows) fits.push_back(fit_collective(m));
  const TopologyFit topo = fit_topology(rows, start_network(fits, g));
  NetworkConfig net = topo.net;
  net.description = "fitted by shardsim from calibration collectives (" + file + ")";
  Provenance prov{true, {}, {}, {}, "topology-model fit and fitted collective segments"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& m = rows[i];
    const std::string name = fmt::format("{}/{}x{}", m.op, m.ranks, m.ranks_per_node);
    for (const auto& e : entries(fits[i])) net.fitted_collectives.push_back(e);
    prov.residuals[name] = fits[i].residual;
    prov.residuals["topology/" + name + "/median_pct"] = topo.errors[i].median_pct;
    prov.sources.push_back({file, m.lines.front(), m.lines.back(), "", name + " items"});
    prov.fit_ranges.push_back({name + " bytes", m.bytes.front(), m.bytes.back(), "bytes"});
  }
  net.provenance = prov;
  g.network = net;
}

void fit_compute(const DeviceFits& d, bool cpu, GpuProfile& g) {
  if (cpu && d.best_gemm_fp32 > 0) {
    g.peak = {d.best_gemm_fp32, 0, d.best_gemm_fp32, d.best_gemm_fp32, 0};
  } else {
    for (const auto& m : d.gemms) {
      double& p = m.dtype == "fp16"   ? g.peak.fp16
                  : m.dtype == "bf16" ? g.peak.bf16
                  : m.dtype == "fp8"  ? g.peak.fp8
                                      : g.peak.fp32;
      p = std::max(p, m.flops_per_second);
    }
  }
  auto points = gemm_points(d.gemms, g.peak, "samples");
  if (auto* p = std::get_if<std::vector<GemmPoint>>(&points); p && !p->empty()) {
    g.compute.kind = "measured";
    g.compute.gemm_points = *p;
    index_gemm_points(g.compute);
  }
  if (d.hbm_bytes_per_second > 0) {
    g.hbm_bytes_per_second = d.hbm_bytes_per_second;
    g.compute.memory_bound_points = d.memory_bound_points;
    if (d.memory_bound_efficiency > 0)
      g.compute.memory_bound_efficiency = d.memory_bound_efficiency;
  }
  if (d.launch_overhead_s > 0) g.compute.launch_overhead_s = d.launch_overhead_s;
  // The model's copy time is bytes / (pcie x kPcieCopyEfficiency) (simulator/cost/collective.h):
  // the link rate that reproduces the largest measured copy.
  if (d.copy_bytes_per_second > 0)
    g.pcie_bytes_per_second = d.copy_bytes_per_second / kPcieCopyEfficiency;
}

void describe(const nlohmann::json& ctx, bool cpu, GpuProfile& g) {
  const std::string host = ctx.value("host", "unknown");
  if (cpu) {
    g.name = "cpu-" + host;
    g.description = fmt::format(
        "The CPU of {} ({}) described as a device by `shardsim calibrate --backend cpu`: one MPI "
        "rank is one device; peak_flops_per_second (fp32 = fp16 = bf16) is the best measured "
        "sgemm FLOP/s (no tensor cores, fp8 0), hbm_bytes_per_second the best measured "
        "memory-bound rate, host.pcie_bytes_per_second the largest host memcpy's rate / 0.8 (the "
        "model's copy efficiency), memory_bytes "
        "the host RAM share of one rank. For testing the calibrate -> fit -> simulate loop, "
        "not for predicting GPUs.",
        host, ctx.value("cpu_model", "unknown CPU"));
    return;
  }
  const auto dev = ctx.at("backend").value("device", nlohmann::json::object());
  g.name = "calibrated-" + dev.value("name", std::string("gpu"));
  g.description = "fitted by `shardsim calibrate --backend cuda` on " + host;
  if (dev.contains("memory_bytes")) g.memory_bytes = dev.at("memory_bytes");
}

}  // namespace

double samples_memory_bytes(const nlohmann::json& samples) {
  const auto& ctx = samples.at("context");
  if (ctx.at("backend").at("backend") != "cpu") return 0;
  const double ram = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  const int per_node = ctx.at("mpi").value("ranks_per_node", 1);
  return ram / std::max(1, per_node);
}

GpuProfile profile_from_samples(const nlohmann::json& samples, const GpuProfile& base,
                                const SamplesSource& src) {
  if (!samples.contains("items") || !samples.contains("context"))
    throw std::invalid_argument(src.file + ": not a samples document (needs items and context)");
  const auto& ctx = samples.at("context");
  const bool cpu = ctx.at("backend").at("backend") == "cpu";
  GpuProfile g = base;
  describe(ctx, cpu, g);
  if (src.memory_bytes > 0) g.memory_bytes = src.memory_bytes;
  const DeviceFits d = fit_device(samples);
  fit_compute(d, cpu, g);
  fit_network(samples, src.file, g);
  const int items = int(samples.at("items").size());
  const std::string date = ctx.value("date_utc", "").substr(0, 10);
  g.provenance = {true,
                  {{src.file, 1, items, date,
                    "calibration samples: gemm, memory_bound, copy, launch and collective items"}},
                  {},
                  {{"memory_bound", d.memory_bound_residual}},
                  cpu ? "CPU backend: the CPU described as a device (see description)" : ""};
  if (!d.gemms.empty()) {
    auto [lo, hi] = std::ranges::minmax(d.gemms, {}, &GemmMeasurement::flops_per_second);
    g.provenance.fit_ranges.push_back(
        {"gemm rate", lo.flops_per_second, hi.flops_per_second, "FLOP/s"});
  }
  if (!d.memory_bound_points.empty()) {
    auto [lo, hi] = std::ranges::minmax(d.memory_bound_points, {}, &MemoryBoundPoint::bytes);
    g.provenance.fit_ranges.push_back({"memory_bound bytes", lo.bytes, hi.bytes, "bytes"});
  }
  return g;
}

}  // namespace shardsim::calibrate
