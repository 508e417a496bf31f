// Hardware descriptions: a GPU profile (the one JSON format shared by shipped presets, calibration
// output and `fit` output) and the network of a cluster. Values are SI: bytes, FLOP/s, bytes/s.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simulator/core/diagnostics.h"
#include "simulator/core/dtype.h"

namespace shardsim {

// Dense (not sparse) peak throughput per number format, FLOP/s.
struct PeakFlops {
  double fp32 = 0;  // non-tensor-core FP32
  double tf32 = 0;
  double fp16 = 0;
  double bf16 = 0;
  double fp8 = 0;  // 0 when the GPU has no FP8 tensor cores
  [[nodiscard]] double for_dtype(Dtype d) const;
};

// Efficiency terms of the compute cost model (simulator/cost/compute.h). Until a calibration run
// fits them, presets carry documented defaults or values from published micro-benchmarks.
struct ComputeModel {
  double gemm_peak_efficiency = 0.80;        // large aligned GEMMs: fraction of the dense peak
  double gemm_tile_m = 128;                  // output tile rows (tile and wave quantization)
  double gemm_tile_n = 128;                  // output tile columns
  int sm_count = 108;                        // concurrent tiles per wave = sm_count
  double gemm_k_half = 64;                   // reduction depth at which k-efficiency is one half
  double gemm_misaligned_efficiency = 0.69;  // a dimension not a multiple of 16 bytes
  double memory_bound_efficiency = 0.85;     // fraction of HBM bandwidth streaming kernels reach
  double launch_overhead_s = 4e-6;           // per kernel, seconds
};

struct GpuProfile {
  std::string name;
  std::string description;
  double memory_bytes = 0;                       // HBM capacity, bytes
  PeakFlops peak;                                // dense peaks, FLOP/s
  double hbm_bytes_per_second = 0;               // datasheet HBM bandwidth, bytes/s
  double pcie_bytes_per_second = 0;              // host link, bytes/s per direction
  double cpu_optimizer_params_per_second = 1e9;  // host Adam step throughput per GPU's share
  ComputeModel compute;
  int default_gpus_per_node = 8;  // the DGX-class node this GPU ships in
  std::string default_network;    // network preset name used when the scenario has none
  nlohmann::json provenance;      // {"fitted": bool, "sources": [...], ...}
};

// Links of a two-level cluster; bandwidths are per GPU per direction.
// The two *_latency_us values are whole-collective start-up times as the shipped presets measure
// them: a small-message (8 B) ring all_reduce over the 8 GPUs of one node, and over 16 GPUs on
// 2 nodes (8 per node). simulator/cost/collective.h turns them into a base latency per level plus
// the per-hop terms below. The optional fields (JSON keys of the same names) default to
// documented priors, not fits.
struct NetworkConfig {
  std::string name;                  // preset name or "custom"
  double intra_node_GBps = 0;        // NVLink/NVSwitch, GB/s (1e9 bytes/s) per GPU per direction
  double intra_node_latency_us = 0;  // 8-rank one-node small all_reduce, microseconds
  double inter_node_Gbps = 0;        // NIC line rate of the GPU's share, Gbit/s (1e9 bit/s)
  double inter_node_latency_us = 0;  // 16-rank two-node small all_reduce, microseconds
  // Per algorithm step (one hop) across NVLink / across the network, microseconds. Default: NCCL
  // 2.30's hop latencies for ring with the LL protocol (NVLink 0.6 us, network 2.7 us).
  double intra_node_hop_latency_us = 0.6;
  double inter_node_hop_latency_us = 2.7;
  // Fraction of link bandwidth a collective reaches, rising with the message one rank sends per
  // step (m): eff(m) = min + (max - min) * m / (m + half). Defaults (0.15, 0.9, 1 MiB) were
  // read off nccl-tests all_reduce logs of DGX-class H100 and A100 systems, not fitted.
  double bandwidth_efficiency_min = 0.15;
  double bandwidth_efficiency_max = 0.9;
  double bandwidth_efficiency_half_bytes = 1048576;
};

// Strict readers (unknown keys, wrong types and out-of-range values go to `diags`).
void read_gpu_profile(const nlohmann::json& j, const std::string& path, Diagnostics& diags,
                      GpuProfile& out);
void read_network_config(const nlohmann::json& j, const std::string& path, Diagnostics& diags,
                         NetworkConfig& out);

[[nodiscard]] nlohmann::json to_json(const GpuProfile& g);
[[nodiscard]] nlohmann::json to_json(const NetworkConfig& n);

}  // namespace shardsim
