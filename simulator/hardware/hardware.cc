#include "simulator/hardware/hardware.h"

#include <fmt/format.h>

#include "simulator/core/json_reader.h"

namespace shardsim {
namespace {

constexpr double kMaxFlops = 1e18;  // 1 EFLOP/s per GPU: far above any device, catches unit slips
constexpr double kMaxBytes = 1e14;  // 100 TB of device memory
constexpr double kMaxBandwidth = 1e14;

void read_compute_model(const nlohmann::json& j, const std::string& path, Diagnostics& diags,
                        GpuProfile& out) {
  ComputeModel& c = out.compute;
  ObjectReader r(j, pointer_join(path, "compute"), diags);
  r.number("gemm_peak_efficiency", c.gemm_peak_efficiency, 0.01, 1);
  r.number("gemm_tile_m", c.gemm_tile_m, 1, 4096);
  r.number("gemm_tile_n", c.gemm_tile_n, 1, 4096);
  r.integer("sm_count", c.sm_count, 1, 1 << 16);
  r.number("gemm_k_half", c.gemm_k_half, 0, 1 << 20);
  r.number("gemm_misaligned_efficiency", c.gemm_misaligned_efficiency, 0.01, 1);
  r.number("memory_bound_efficiency", c.memory_bound_efficiency, 0.01, 1);
  r.number("launch_overhead_s", c.launch_overhead_s, 0, 1);
  r.allow("sources");
  r.finish();
}

}  // namespace

double PeakFlops::for_dtype(Dtype d) const {
  switch (d) {
    case Dtype::kFp32:
      return fp32;
    case Dtype::kFp16:
      return fp16;
    case Dtype::kBf16:
      return bf16;
    case Dtype::kFp8:
      return fp8 > 0 ? fp8 : bf16;
  }
  return fp32;
}

void read_gpu_profile(const nlohmann::json& j, const std::string& path, Diagnostics& diags,
                      GpuProfile& out) {
  ObjectReader r(j, path, diags);
  r.string("name", out.name, true);
  r.string("description", out.description);
  r.number("memory_bytes", out.memory_bytes, 1, kMaxBytes, true);
  if (const auto* peak = r.object("peak_flops_per_second")) {
    ObjectReader p(*peak, pointer_join(path, "peak_flops_per_second"), diags);
    p.number("fp32", out.peak.fp32, 1, kMaxFlops, true);
    p.number("tf32", out.peak.tf32, 0, kMaxFlops);
    p.number("fp16", out.peak.fp16, 1, kMaxFlops, true);
    p.number("bf16", out.peak.bf16, 0, kMaxFlops);
    p.number("fp8", out.peak.fp8, 0, kMaxFlops);
    p.finish();
  } else if (r.ok() && !r.has("peak_flops_per_second")) {
    diags.error(pointer_join(path, "peak_flops_per_second"), "is required but missing");
  }
  r.number("hbm_bytes_per_second", out.hbm_bytes_per_second, 1, kMaxBandwidth, true);
  if (const auto* host = r.object("host")) {
    ObjectReader h(*host, pointer_join(path, "host"), diags);
    h.number("pcie_bytes_per_second", out.pcie_bytes_per_second, 1, kMaxBandwidth, true);
    h.number("cpu_optimizer_params_per_second", out.cpu_optimizer_params_per_second, 1, 1e15);
    h.finish();
  }
  if (const auto* compute = r.object("compute")) read_compute_model(*compute, path, diags, out);
  if (const auto* node = r.object("node")) {
    ObjectReader n(*node, pointer_join(path, "node"), diags);
    n.integer("gpus_per_node", out.default_gpus_per_node, 1, 1024);
    n.string("network", out.default_network);
    n.finish();
  }
  if (const auto* prov = r.raw("provenance")) out.provenance = *prov;
  r.finish();
}

void read_network_config(const nlohmann::json& j, const std::string& path, Diagnostics& diags,
                         NetworkConfig& out) {
  ObjectReader r(j, path, diags);
  r.string("name", out.name);
  r.allow("description");
  r.allow("sources");
  r.number("intra_node_GBps", out.intra_node_GBps, 1e-3, 1e6, true);
  r.number("intra_node_latency_us", out.intra_node_latency_us, 0, 1e6, true);
  r.number("inter_node_Gbps", out.inter_node_Gbps, 1e-3, 1e7, true);
  r.number("inter_node_latency_us", out.inter_node_latency_us, 0, 1e6, true);
  r.number("intra_node_hop_latency_us", out.intra_node_hop_latency_us, 0, 1e6);
  r.number("inter_node_hop_latency_us", out.inter_node_hop_latency_us, 0, 1e6);
  r.number("bandwidth_efficiency_min", out.bandwidth_efficiency_min, 0.001, 1);
  r.number("bandwidth_efficiency_max", out.bandwidth_efficiency_max, 0.001, 1);
  r.number("bandwidth_efficiency_half_bytes", out.bandwidth_efficiency_half_bytes, 0, 1e15);
  r.finish();
  if (out.bandwidth_efficiency_min > out.bandwidth_efficiency_max)
    diags.error(pointer_join(path, "bandwidth_efficiency_min"),
                fmt::format("must be <= bandwidth_efficiency_max ({}), got {}",
                            out.bandwidth_efficiency_max, out.bandwidth_efficiency_min));
}

nlohmann::json to_json(const GpuProfile& g) {
  nlohmann::json peak = {{"fp32", g.peak.fp32},
                         {"tf32", g.peak.tf32},
                         {"fp16", g.peak.fp16},
                         {"bf16", g.peak.bf16},
                         {"fp8", g.peak.fp8}};
  nlohmann::json j = {
      {"name", g.name},
      {"description", g.description},
      {"memory_bytes", g.memory_bytes},
      {"peak_flops_per_second", peak},
      {"hbm_bytes_per_second", g.hbm_bytes_per_second},
      {"host",
       {{"pcie_bytes_per_second", g.pcie_bytes_per_second},
        {"cpu_optimizer_params_per_second", g.cpu_optimizer_params_per_second}}},
      {"compute",
       {{"gemm_peak_efficiency", g.compute.gemm_peak_efficiency},
        {"gemm_tile_m", g.compute.gemm_tile_m},
        {"gemm_tile_n", g.compute.gemm_tile_n},
        {"sm_count", g.compute.sm_count},
        {"gemm_k_half", g.compute.gemm_k_half},
        {"gemm_misaligned_efficiency", g.compute.gemm_misaligned_efficiency},
        {"memory_bound_efficiency", g.compute.memory_bound_efficiency},
        {"launch_overhead_s", g.compute.launch_overhead_s}}},
      {"node", {{"gpus_per_node", g.default_gpus_per_node}, {"network", g.default_network}}}};
  if (!g.provenance.is_null()) j["provenance"] = g.provenance;
  return j;
}

nlohmann::json to_json(const NetworkConfig& n) {
  return {{"name", n.name},
          {"intra_node_GBps", n.intra_node_GBps},
          {"intra_node_latency_us", n.intra_node_latency_us},
          {"inter_node_Gbps", n.inter_node_Gbps},
          {"inter_node_latency_us", n.inter_node_latency_us},
          {"intra_node_hop_latency_us", n.intra_node_hop_latency_us},
          {"inter_node_hop_latency_us", n.inter_node_hop_latency_us},
          {"bandwidth_efficiency_min", n.bandwidth_efficiency_min},
          {"bandwidth_efficiency_max", n.bandwidth_efficiency_max},
          {"bandwidth_efficiency_half_bytes", n.bandwidth_efficiency_half_bytes}};
}

}  // namespace shardsim
