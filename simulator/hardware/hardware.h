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
  double gemm_peak_efficiency = 0.80;  // large aligned GEMMs: fraction of the dense peak
  double gemm_tile_m = 128;            // output tile rows (tile and wave quantization)
  double gemm_tile_n = 128;            // output tile columns
  int sm_count = 108;                  // concurrent tiles per wave = sm_count
  double gemm_k_half = 64;             // reduction depth at which k-efficiency is one half
  double gemm_misaligned_efficiency = 0.69;  // a dimension not a multiple of 16 bytes
  double memory_bound_efficiency = 0.85;     // fraction of HBM bandwidth streaming kernels reach
  double launch_overhead_s = 4e-6;           // per kernel, seconds
};

struct GpuProfile {
  std::string name;
  std::string description;
  double memory_bytes = 0;           // HBM capacity, bytes
  PeakFlops peak;                    // dense peaks, FLOP/s
  double hbm_bytes_per_second = 0;   // datasheet HBM bandwidth, bytes/s
  double pcie_bytes_per_second = 0;  // host link, bytes/s per direction
  double cpu_optimizer_params_per_second = 1e9;  // host Adam step throughput per GPU's share
  ComputeModel compute;
  int default_gpus_per_node = 8;     // the DGX-class node this GPU ships in
  std::string default_network;       // network preset name used when the scenario has none
  nlohmann::json provenance;         // {"fitted": bool, "sources": [...], ...}
};

// Links of a two-level cluster; bandwidths are per GPU per direction.
struct NetworkConfig {
  std::string name;            // preset name or "custom"
  double intra_node_GBps = 0;  // NVLink/NVSwitch, GB/s (1e9 bytes/s) per GPU per direction
  double intra_node_latency_us = 0;
  double inter_node_Gbps = 0;  // NIC line rate of the GPU's share, Gbit/s (1e9 bit/s)
  double inter_node_latency_us = 0;
};

// Strict readers (unknown keys, wrong types and out-of-range values go to `diags`).
void read_gpu_profile(const nlohmann::json& j, const std::string& path, Diagnostics& diags,
                      GpuProfile& out);
void read_network_config(const nlohmann::json& j, const std::string& path, Diagnostics& diags,
                         NetworkConfig& out);

[[nodiscard]] nlohmann::json to_json(const GpuProfile& g);
[[nodiscard]] nlohmann::json to_json(const NetworkConfig& n);

}  // namespace shardsim
