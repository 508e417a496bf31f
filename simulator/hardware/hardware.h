// Hardware descriptions: a GPU profile (the one JSON format shared by shipped presets, calibration
// output and `fit` output) and the network of a cluster. Values are SI: bytes, FLOP/s, bytes/s.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "simulator/core/diagnostics.h"
#include "simulator/core/dtype.h"
#include "simulator/core/shared_vector.h"

namespace shardsim {

// Dense (not sparse) peak throughput per number format, FLOP/s.
struct PeakFlops {
  double fp32 = 0;  // non-tensor-core FP32
  double tf32 = 0;
  double fp16 = 0;
  double bf16 = 0;
  double fp8 = 0;  // 0 when the GPU has no FP8 tensor cores
  [[nodiscard]] double for_dtype(Dtype d) const;
  bool operator==(const PeakFlops&) const = default;
};

// Where a profile's numbers come from (typed; simulator/hardware/hardware_tables.h has the tables).
struct ProvenanceSource {
  std::string file;   // file or URL of the measurement or document
  int first_row = 0;  // row (line) range used, 1-based; 0 when not applicable
  int last_row = 0;
  std::string date;         // ISO date of the measurement or document, when known
  std::string description;  // free text: what was taken from it
  bool operator==(const ProvenanceSource&) const = default;
};

// The range of one input variable a fit covered, e.g. {"bytes", 8, 1.7e10, "bytes"}.
struct FitRange {
  std::string name;
  double min = 0;
  double max = 0;
  std::string unit;
  bool operator==(const FitRange&) const = default;
};

struct Provenance {
  bool fitted = false;  // true only for values fitted from measurements by shardsim
  SharedVector<ProvenanceSource> sources;  // shared by copies (core/shared_vector.h)
  std::vector<FitRange> fit_ranges;
  std::map<std::string, double> residuals;  // fit name -> normalised residual (RMS / mean)
  std::string note;
  bool operator==(const Provenance&) const = default;
};

// One measured GEMM shape: efficiency = achieved FLOP/s / the dtype's dense peak.
struct GemmPoint {
  std::string dtype = "bf16";  // fp32 | fp16 | bf16 | fp8
  double m = 0, n = 0, k = 0;
  double efficiency = 0;
  // Field by field, numbers first and the short dtype name inline: a search's memos compare whole
  // profiles (simulator/core/memo.h), and a fitted table holds hundreds of points.
  bool operator==(const GemmPoint& o) const {
    return m == o.m && n == o.n && k == o.k && efficiency == o.efficiency &&
           std::equal(dtype.begin(), dtype.end(), o.dtype.begin(), o.dtype.end());
  }
};

// An index of gemm_points for the lookup that runs for every GEMM a plan prices
// (measured_efficiency.h): per dtype, the measured range and the points' log2 shapes sorted by
// log2 m, so a lookup visits the few points near the query instead of the whole table. Filled by
// index_gemm_points(), which read_gpu_profile calls; code that changes gemm_points afterwards
// calls it again. A lookup uses the index only while it covers as many points as gemm_points
// holds, else scans the table (same result, slower). Derived data: profiles compare equal
// whatever it holds.
struct GemmPointLogs {
  struct Entry {
    double log2_m = 0, log2_n = 0, log2_k = 0;
    std::size_t point = 0;  // index into gemm_points
  };
  struct Table {
    std::string dtype;
    std::array<double, 3> lo{}, hi{};  // the points' own m, n, k range
    std::vector<Entry> by_m = {};      // ascending (log2_m, point)
  };
  std::vector<Table> tables = {};
  std::size_t points = 0;  // gemm_points.size() when indexed
  bool operator==(const GemmPointLogs&) const { return true; }
};

// Memory-bound efficiency measured at a transfer size (fraction of HBM bandwidth), for one class
// of kernel (a name of core/memory_kernel.h) or, with `kernel` empty, for any kernel.
struct MemoryBoundPoint {
  double bytes = 0;
  double efficiency = 0;
  std::string kernel = {};  // "" | layernorm | rmsnorm | softmax | gelu | swiglu | ...
  bool operator==(const MemoryBoundPoint&) const = default;
};

// A fused-attention kernel's (`kernel`: flash-attention-2, flash-attention-triton, ...) measured
// rate over one forward + backward pass at one shape: sequence length `seq` (queries = keys), head
// dimension `head_dim`, with or without the causal mask, over `batch_heads` = batch x heads
// independent attentions; `efficiency` = the executed FLOP/s (forward 4 seq^2 head_dim per head,
// halved under the causal mask; backward 2.5x the forward) over the fp16/bf16 dense peak.
struct AttentionPoint {
  std::string kernel = "flash-attention-2";  // the implementation measured
  double seq = 0;
  double head_dim = 0;
  bool causal = false;
  double batch_heads = 0;
  double efficiency = 0;
  bool operator==(const AttentionPoint&) const = default;
};

// Efficiency terms of the compute cost model (simulator/cost/compute.h). Until a calibration run
// fits them, presets carry documented defaults or values from published micro-benchmarks.
// kind "roofline" (default): the closed form of simulator/cost/compute.h. kind "measured": GEMM
// efficiency interpolated in `gemm_points` (dtypes without points fall back to the closed form).
// `memory_bound_points`, when present, replace memory_bound_efficiency for any kind: a kernel
// class's own points where the profile has them, else the points without a class.
// `attention_points`, when present, cost fp16/bf16 flash attention at the measured kernel's rate
// (simulator/cost/compute.h) instead of the GEMM efficiency of its score shape.
struct ComputeModel {
  double gemm_peak_efficiency = 0.80;        // large aligned GEMMs: fraction of the dense peak
  double gemm_tile_m = 128;                  // output tile rows (tile and wave quantization)
  double gemm_tile_n = 128;                  // output tile columns
  int sm_count = 108;                        // concurrent tiles per wave = sm_count
  double gemm_k_half = 64;                   // reduction depth at which k-efficiency is one half
  double gemm_misaligned_efficiency = 0.69;  // a dimension not a multiple of 16 bytes
  double memory_bound_efficiency = 0.85;     // fraction of HBM bandwidth streaming kernels reach
  double launch_overhead_s = 4e-6;           // per kernel, seconds
  // Fraction by which compute slows while a collective runs on the same GPU (its kernels hold
  // SMs and HBM bandwidth): compute progresses at 1 / (1 + this). Default 0.189: the mean
  // computational slowdown under overlap that Lee et al. measured over GPT and LLaMA training on
  // 4 A100, H100, MI250 and MI210 GPUs ("Characterizing Compute-Communication Overlap in
  // GPU-Accelerated Distributed Deep Learning", arXiv:2507.03114, 2025; maximum 40.0%).
  double overlap_compute_slowdown = 0.189;
  std::string kind = "roofline";  // "roofline" | "measured"
  // The measured tables: shared by a profile's copies until one changes (core/shared_vector.h),
  // so that a memo's comparison of two copies does not read them.
  SharedVector<GemmPoint> gemm_points = {};                 // kind "measured"
  SharedVector<MemoryBoundPoint> memory_bound_points = {};  // ascending bytes per kernel
  SharedVector<AttentionPoint> attention_points = {};       // measured flash attention
  // How each table was timed: "" or "back_to_back" (a loop of launches, CUDA events or a steady
  // clock around it: the gap between kernels is in the times) or "kernel_only" (a profiler's
  // kernel durations, e.g. CUPTI: the launch gap is not). simulator/cost/compute.cc prices a
  // kernel from a back-to-back table without an added launch, from a kernel-only one with it.
  std::string gemm_points_timing = {};
  std::string memory_bound_points_timing = {};
  std::string attention_points_timing = {};
  GemmPointLogs gemm_point_logs = {};  // derived from gemm_points; not part of the profile
  bool operator==(const ComputeModel&) const = default;
};

// Fills c.gemm_point_logs from c.gemm_points (GemmPointLogs above; simulator/hardware/
// measured_efficiency.cc).
void index_gemm_points(ComputeModel& c);

// One collective fitted from nccl-tests rows: time(S) = alpha_s + bus_factor(op, ranks) * S /
// busbw_bytes_per_second, with S the nccl-tests size (simulator/cost/collective.h).
struct FittedCollective {
  std::string op;          // nccl-tests name: all_reduce, all_gather, reduce_scatter, ...
  int ranks = 0;           // group size
  int ranks_per_node = 0;  // group ranks on each node (= ranks inside one node)
  double alpha_s = 0;      // start-up latency, seconds (a later segment: its line's intercept)
  double busbw_bytes_per_second = 0;  // asymptotic nccl-tests busbw, bytes/s
  double min_bytes = 0;               // size range of the fitted rows (0 = not recorded)
  double max_bytes = 0;
  bool operator==(const FittedCollective&) const = default;
};

// nccl-tests bus factor of a FittedCollective op name: all_reduce 2(n-1)/n; reduce_scatter,
// all_gather, alltoall (n-1)/n; sendrecv, broadcast and any other name 1. The same table as
// simulator/cost's bus_factor(CollectiveOp, int), which the profile reader cannot call (cost sits
// above hardware); tests/hardware/profile_test.cc checks that the two agree for every op.
[[nodiscard]] double fitted_bus_factor(const std::string& op, int ranks);

// The largest all-reduce gain a network may carry (NetworkConfig; the reader's upper bound).
inline constexpr double kMaxAllReduceGain = 16;

// The largest dimension (m, n, k; an attention's seq and batch x heads) a measured point may have:
// the profile reader's limit, which fit's table readers check at the table's line.
inline constexpr double kMaxMeasuredDimension = 1e9;

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
  double inter_node_Gbps = 0;        // NIC rate of the GPU's share, Gbit/s (1e9 bit/s); the
                                     // line rate in datasheet presets, fitted ones at or below it
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
  // Declared line rates (datasheet), same units as the two link rates above; 0 = not declared.
  // `fit` never puts a link rate above its line rate: what all-reduce logs measure beyond it
  // goes to the gains below.
  double intra_node_line_GBps = 0;
  double inter_node_line_Gbps = 0;
  // All-reduce bandwidth over the link rate on each level (>= 1, at most kMaxAllReduceGain):
  // what all-reduce logs measure beyond what the formula's ring/tree/hierarchical reach over
  // the link. On NVSwitch and InfiniBand fabrics mostly in-switch reduction (NVLink SHARP / NVLS,
  // SHARP), which sends each byte to the switch once and gets the sum back where a ring moves it
  // 2(n-1)/n times; fitted on fabrics without it too (EFA, TCPXO, PCIe), where it is whatever
  // else the formula misses. 1 = none; the other collectives see the link rates. A gain counts
  // up to in-switch reduction's saving (2(n-1)/n for a ring of n) times line / link rate
  // (simulator/cost/collective.cc, at_fraction): no all-reduce beats S at the line rate.
  double intra_node_all_reduce_gain = 1;
  double inter_node_all_reduce_gain = 1;
  std::string description;
  // Fitted collectives: used instead of the topology formula where one matches (collective.h).
  std::vector<FittedCollective> fitted_collectives;
  std::optional<Provenance> provenance;
  bool operator==(const NetworkConfig&) const = default;
};

struct GpuProfile {
  std::string name;
  std::string description;
  // What the profile describes: "gpu", "cpu" (`calibrate --backend cpu`: the CPU described as a
  // device), or "" (not stated: a preset, a hand-written profile, or a file written before
  // 2026-11-28; calibrate::is_cpu_profile then reads the description).
  std::string device_kind;
  double memory_bytes = 0;                       // HBM capacity, bytes
  PeakFlops peak;                                // dense peaks, FLOP/s
  double hbm_bytes_per_second = 0;               // datasheet HBM bandwidth, bytes/s
  double pcie_bytes_per_second = 0;              // host link, bytes/s per direction
  double cpu_optimizer_params_per_second = 1e9;  // host Adam step throughput per GPU's share
  ComputeModel compute;
  int default_gpus_per_node = 8;         // the DGX-class node this GPU ships in
  std::string default_network;           // network preset name used when the scenario has none
  std::optional<NetworkConfig> network;  // used when a scenario gives no cluster.network
  Provenance provenance;
  bool operator==(const GpuProfile&) const = default;
};

// Strict readers (unknown keys, wrong types and out-of-range values go to `diags`).
void read_gpu_profile(const nlohmann::json& j, const std::string& path, Diagnostics& diags,
                      GpuProfile& out);
void read_network_config(const nlohmann::json& j, const std::string& path, Diagnostics& diags,
                         NetworkConfig& out);

[[nodiscard]] nlohmann::json to_json(const GpuProfile& g);
[[nodiscard]] nlohmann::json to_json(const NetworkConfig& n);

// JSON Schema of the hardware profile, generated from the field tables
// (reports/schemas/hardware-profile.schema.json is this, written with 2-space indent).
[[nodiscard]] nlohmann::json hardware_profile_schema();

// What a report says about the profile: name, fitted, number of sources, note.
[[nodiscard]] nlohmann::json profile_summary(const GpuProfile& g);
// The same for a network: name, fitted (false without provenance), number of sources, note.
[[nodiscard]] nlohmann::json network_summary(const NetworkConfig& n);

// The warning a report carries when it uses a profile / network that is not fitted from
// measurements (provenance.fitted false or no provenance), or nullopt when it is fitted.
[[nodiscard]] std::optional<std::string> unfitted_profile_warning(const GpuProfile& g);
[[nodiscard]] std::optional<std::string> unfitted_network_warning(const NetworkConfig& n);

}  // namespace shardsim
