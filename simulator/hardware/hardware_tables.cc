// Field tables of the hardware profile JSON (see hardware_tables.h). Tables are immutable
// function-local constants.
#include "simulator/hardware/hardware_tables.h"

#include "simulator/core/memory_kernel.h"

namespace shardsim {
namespace {

constexpr double kMaxFlops = 1e18;  // 1 EFLOP/s per GPU: far above any device, catches unit slips
constexpr double kMaxBytes = 1e14;  // 100 TB of device memory
constexpr double kMaxBandwidth = 1e14;
constexpr double kMaxDim = kMaxMeasuredDimension;  // GEMM and attention dimensions
const std::vector<std::string> kDtypes = {"fp32", "tf32", "fp16", "bf16", "fp8"};
const std::vector<std::string> kComputeKinds = {"roofline", "measured"};
const std::vector<std::string> kDeviceKinds = {"gpu", "cpu"};
const std::vector<std::string> kTableTimings = {"back_to_back", "kernel_only"};
// Named kernel classes (core/memory_kernel.h) without "" (the generic curve omits the key).
const std::vector<std::string>& memory_kernel_choices() {
  static const std::vector<std::string> names(kMemoryKernelNames.begin() + 1,
                                              kMemoryKernelNames.end());
  return names;
}
const std::vector<std::string> kCollectives = {"all_reduce", "reduce_scatter", "all_gather",
                                               "alltoall",   "sendrecv",       "broadcast"};

}  // namespace

const Table<GpuProfile>& gpu_profile_table() {
  using G = GpuProfile;
  static const Table<G> t = {
      {"name", &G::name, "", 0, 0, true, "profile name (preset name for shipped profiles)"},
      {"description", &G::description, "", 0, 0, false, "free text: the device and conventions"},
      {"device_kind", &G::device_kind, "", 0, 0, false,
       "what the profile describes: gpu, or cpu (calibrate --backend cpu: the CPU described as a "
       "device); absent: a GPU, unless the description says calibrate --backend cpu described it",
       &kDeviceKinds},
      {"memory_bytes", &G::memory_bytes, "bytes", 1, kMaxBytes, true, "HBM capacity"},
      {"peak_flops_per_second",
       object_member(&G::peak, &peak_flops_table, Check<PeakFlops>(check_peaks)), "FLOP/s", 0, 0,
       true, "dense (not sparse) peak throughput per number format"},
      {"hbm_bytes_per_second", &G::hbm_bytes_per_second, "bytes/s", 1, kMaxBandwidth, true,
       "datasheet HBM bandwidth"},
      {"host", section(&host_table), "", 0, 0, false, "host link and CPU"},
      {"compute", object_member(&G::compute, &compute_table, Check<ComputeModel>(check_compute)),
       "", 0, 0, false, "compute cost model (simulator/cost/compute.h)"},
      {"node", section(&node_table), "", 0, 0, false, "the DGX-class node this GPU ships in"},
      {"network", optional_member(&G::network, &network_table, Check<NetworkConfig>(check_network)),
       "", 0, 0, false,
       "the profile's network, used when a scenario gives no cluster.network (before "
       "node.network)"},
      {"provenance", object_member(&G::provenance, &provenance_table), "", 0, 0, false,
       "where the numbers come from"},
  };
  return t;
}

const Table<PeakFlops>& peak_flops_table() {
  using P = PeakFlops;
  static const Table<P> t = {
      {"fp32", &P::fp32, "FLOP/s", 1, kMaxFlops, true, "non-tensor-core FP32"},
      {"tf32", &P::tf32, "FLOP/s", 0, kMaxFlops, false, "TF32 tensor cores (0: none, else >= 1)"},
      {"fp16", &P::fp16, "FLOP/s", 1, kMaxFlops, true, "FP16 tensor cores"},
      {"bf16", &P::bf16, "FLOP/s", 0, kMaxFlops, false, "BF16 tensor cores (0: none, else >= 1)"},
      {"fp8", &P::fp8, "FLOP/s", 0, kMaxFlops, false,
       "FP8 tensor cores (0: none, bf16 is used; else >= 1)"},
  };
  return t;
}

const Table<GpuProfile>& host_table() {
  using G = GpuProfile;
  static const Table<G> t = {
      {"pcie_bytes_per_second", &G::pcie_bytes_per_second, "bytes/s", 1, kMaxBandwidth, true,
       "host link bandwidth per direction"},
      {"cpu_optimizer_params_per_second", &G::cpu_optimizer_params_per_second, "params/s", 1, 1e15,
       false, "host optimizer (CPU Adam) throughput of this GPU's share of the host"},
  };
  return t;
}

const Table<ComputeModel>& compute_table() {
  using C = ComputeModel;
  static const Table<C> t = {
      {"kind", &C::kind, "", 0, 0, false,
       "roofline: closed-form GEMM efficiency; measured: interpolated in gemm_points",
       &kComputeKinds},
      {"gemm_peak_efficiency", &C::gemm_peak_efficiency, "", 0.01, 1, false,
       "large aligned GEMMs: fraction of the dense peak"},
      {"gemm_tile_m", &C::gemm_tile_m, "elements", 1, 4096, false, "output tile rows"},
      {"gemm_tile_n", &C::gemm_tile_n, "elements", 1, 4096, false, "output tile columns"},
      {"sm_count", &C::sm_count, "", 1, 1 << 16, false, "concurrent tiles per wave"},
      {"gemm_k_half", &C::gemm_k_half, "elements", 0, 1 << 20, false,
       "reduction depth at which k-efficiency is one half"},
      {"gemm_misaligned_efficiency", &C::gemm_misaligned_efficiency, "", 0.01, 1, false,
       "efficiency factor when a dimension is not a multiple of 16 bytes"},
      {"memory_bound_efficiency", &C::memory_bound_efficiency, "", 0.01, 1, false,
       "fraction of HBM bandwidth streaming kernels reach (without memory_bound_points)"},
      {"launch_overhead_s", &C::launch_overhead_s, "s", 0, 1, false,
       "per-kernel launch gap: added to a kernel the closed form or a kernel_only table prices; "
       "a kernel priced from a back-to-back measured table holds it already and takes at least "
       "this"},
      {"overlap_compute_slowdown", &C::overlap_compute_slowdown, "", 0, 4, false,
       "fraction by which compute slows while a collective runs on the same GPU (default 0.189: "
       "Lee et al. 2025, arXiv:2507.03114, mean over A100/H100/MI250/MI210)"},
      {"gemm_points", array_member(&C::gemm_points, &gemm_point_table), "", 0, 0, false,
       "measured GEMM efficiencies (kind measured)"},
      {"memory_bound_points", array_member(&C::memory_bound_points, &memory_bound_point_table), "",
       0, 0, false,
       "memory-bound efficiency by bytes moved, ascending bytes; piecewise-linear in log(bytes)"},
      {"attention_points", array_member(&C::attention_points, &attention_point_table), "", 0, 0,
       false,
       "measured flash attention (forward + backward) efficiencies by sequence length, head "
       "dimension and mask; fp16/bf16 flash attention is costed from them"},
      {"gemm_points_timing", &C::gemm_points_timing, "", 0, 0, false,
       "how gemm_points were timed: back_to_back (absent: a loop of launches; the launch gap is "
       "in the times, so a kernel priced from them adds none) or kernel_only (a profiler's kernel "
       "durations; launch_overhead_s is added)",
       &kTableTimings},
      {"memory_bound_points_timing", &C::memory_bound_points_timing, "", 0, 0, false,
       "how memory_bound_points were timed: back_to_back (absent) or kernel_only "
       "(gemm_points_timing)",
       &kTableTimings},
      {"attention_points_timing", &C::attention_points_timing, "", 0, 0, false,
       "how attention_points were timed: back_to_back (absent) or kernel_only "
       "(gemm_points_timing)",
       &kTableTimings},
  };
  return t;
}

const Table<GemmPoint>& gemm_point_table() {
  using P = GemmPoint;
  static const Table<P> t = {
      {"dtype", &P::dtype, "", 0, 0, true, "number format", &kDtypes},
      {"m", &P::m, "elements", 1, kMaxDim, true, "output rows"},
      {"n", &P::n, "elements", 1, kMaxDim, true, "output columns"},
      {"k", &P::k, "elements", 1, kMaxDim, true, "reduction depth"},
      {"efficiency", &P::efficiency, "", 1e-4, 1, true,
       "achieved FLOP/s over the dtype's dense peak"},
  };
  return t;
}

const Table<MemoryBoundPoint>& memory_bound_point_table() {
  using P = MemoryBoundPoint;
  static const Table<P> t = {
      {"bytes", &P::bytes, "bytes", 1, 1e15, true, "bytes moved by the kernel"},
      {"efficiency", &P::efficiency, "", 1e-4, 1, true, "fraction of HBM bandwidth reached"},
      {"kernel", &P::kernel, "", 0, 0, false,
       "the class of memory-bound kernel measured (absent: any kernel without its own points)",
       &memory_kernel_choices()},
  };
  return t;
}

const Table<AttentionPoint>& attention_point_table() {
  using P = AttentionPoint;
  static const Table<P> t = {
      {"kernel", &P::kernel, "", 0, 0, true,
       "the fused-attention implementation measured (training.attention_kernel selects it)"},
      {"seq", &P::seq, "tokens", 1, kMaxDim, true, "sequence length (queries = keys)"},
      {"head_dim", &P::head_dim, "elements", 1, 4096, true, "head dimension"},
      {"causal", &P::causal, "", 0, 0, true, "causal mask (executed FLOPs halved)"},
      {"batch_heads", &P::batch_heads, "", 1, kMaxDim, true,
       "batch x heads: independent attentions in the measured call"},
      {"efficiency", &P::efficiency, "", 1e-4, 1, true,
       "executed FLOP/s of forward + backward over the fp16/bf16 dense peak"},
  };
  return t;
}

const Table<GpuProfile>& node_table() {
  using G = GpuProfile;
  static const Table<G> t = {
      {"gpus_per_node", &G::default_gpus_per_node, "", 1, 1024, false, "GPUs per node"},
      {"network", &G::default_network, "", 0, 0, false,
       "network preset name used when neither the scenario nor the profile gives a network"},
  };
  return t;
}

const Table<NetworkConfig>& network_table() {
  using N = NetworkConfig;
  static const Table<N> t = {
      {"name", &N::name, "", 0, 0, false, "preset name or \"custom\""},
      {"description", &N::description, "", 0, 0, false, "free text: the system and conventions"},
      {"intra_node_GBps", &N::intra_node_GBps, "GB/s", 1e-3, 1e6, true,
       "NVLink/NVSwitch bandwidth per GPU per direction"},
      {"intra_node_latency_us", &N::intra_node_latency_us, "us", 0, 1e6, true,
       "8-rank one-node small all_reduce time"},
      {"inter_node_Gbps", &N::inter_node_Gbps, "Gbit/s", 1e-3, 1e7, true,
       "NIC rate of the GPU's share (fitted presets: at or below inter_node_line_Gbps)"},
      {"inter_node_latency_us", &N::inter_node_latency_us, "us", 0, 1e6, true,
       "16-rank two-node small all_reduce time"},
      {"intra_node_hop_latency_us", &N::intra_node_hop_latency_us, "us", 0, 1e6, false,
       "per algorithm step across NVLink"},
      {"inter_node_hop_latency_us", &N::inter_node_hop_latency_us, "us", 0, 1e6, false,
       "per algorithm step across the network"},
      {"bandwidth_efficiency_min", &N::bandwidth_efficiency_min, "", 0.001, 1, false,
       "link efficiency for tiny messages"},
      {"bandwidth_efficiency_max", &N::bandwidth_efficiency_max, "", 0.001, 1, false,
       "link efficiency for large messages"},
      {"bandwidth_efficiency_half_bytes", &N::bandwidth_efficiency_half_bytes, "bytes", 0, 1e15,
       false, "message size at half the efficiency span"},
      {"intra_node_line_GBps", &N::intra_node_line_GBps, "GB/s", 0, 1e6, false,
       "declared NVLink/NVSwitch line rate per GPU per direction (0: not declared); fit keeps "
       "intra_node_GBps at or below it"},
      {"inter_node_line_Gbps", &N::inter_node_line_Gbps, "Gbit/s", 0, 1e7, false,
       "declared NIC line rate of the GPU's share (0: not declared); fit keeps inter_node_Gbps "
       "at or below it"},
      {"intra_node_all_reduce_gain", &N::intra_node_all_reduce_gain, "", 1, kMaxAllReduceGain,
       false,
       "all_reduce bandwidth over intra_node_GBps: what all_reduce logs measure beyond the "
       "formula over the link (in-switch reduction, NVLS, where the fabric has it)"},
      {"inter_node_all_reduce_gain", &N::inter_node_all_reduce_gain, "", 1, kMaxAllReduceGain,
       false,
       "all_reduce bandwidth over inter_node_Gbps: what all_reduce logs measure beyond the "
       "formula over the link (in-network reduction, SHARP, where the fabric has it)"},
      {"fitted_collectives", array_member(&N::fitted_collectives, &fitted_collective_table), "", 0,
       0, false, "fitted (alpha, busbw) per op, group size and ranks per node"},
      {"provenance", optional_member(&N::provenance, &provenance_table), "", 0, 0, false,
       "where the numbers come from"},
  };
  return t;
}

const Table<FittedCollective>& fitted_collective_table() {
  using F = FittedCollective;
  static const Table<F> t = {
      {"op", &F::op, "", 0, 0, true, "nccl-tests collective name", &kCollectives},
      {"ranks", &F::ranks, "", 2, 1 << 24, true, "group size"},
      {"ranks_per_node", &F::ranks_per_node, "", 1, 1 << 16, true, "group ranks on each node"},
      {"alpha_s", &F::alpha_s, "s", -10, 10, true,
       "start-up latency; in a segment above the first, the intercept of its line (negative "
       "where time grows faster than linearly, e.g. past the last-level cache)"},
      {"busbw_bytes_per_second", &F::busbw_bytes_per_second, "bytes/s", 1, kMaxBandwidth, true,
       "asymptotic bus bandwidth (nccl-tests busbw)"},
      {"min_bytes", &F::min_bytes, "bytes", 0, 1e15, false, "smallest fitted size", nullptr, true},
      {"max_bytes", &F::max_bytes, "bytes", 0, 1e15, false, "largest fitted size", nullptr, true},
  };
  return t;
}

const Table<Provenance>& provenance_table() {
  using P = Provenance;
  static const Table<P> t = {
      {"fitted", &P::fitted, "", 0, 0, false, "true only for values fitted from measurements"},
      {"sources", array_member(&P::sources, &provenance_source_table), "", 0, 0, false,
       "documents and measurements the values come from"},
      {"fit_ranges", array_member(&P::fit_ranges, &fit_range_table), "", 0, 0, false,
       "input ranges the fits covered"},
      {"residuals", number_map(&P::residuals, 0, 1e6), "", 0, 0, false,
       "fit name -> normalised residual (RMS error / mean)"},
      {"note", &P::note, "", 0, 0, false, "free text"},
  };
  return t;
}

const Table<ProvenanceSource>& provenance_source_table() {
  using S = ProvenanceSource;
  static const Table<S> t = {
      {"file", &S::file, "", 0, 0, false, "file or URL"},
      {"first_row", &S::first_row, "", 0, 1 << 30, false, "first row (line) used", nullptr, true},
      {"last_row", &S::last_row, "", 0, 1 << 30, false, "last row (line) used", nullptr, true},
      {"date", &S::date, "", 0, 0, false, "ISO date of the measurement or document"},
      {"description", &S::description, "", 0, 0, false, "what was taken from it"},
  };
  return t;
}

const Table<FitRange>& fit_range_table() {
  using F = FitRange;
  static const Table<F> t = {
      {"name", &F::name, "", 0, 0, true, "input variable"},
      {"min", &F::min, "", -1e30, 1e30, true, "smallest value fitted"},
      {"max", &F::max, "", -1e30, 1e30, true, "largest value fitted"},
      {"unit", &F::unit, "", 0, 0, false, "unit of min and max"},
  };
  return t;
}

}  // namespace shardsim
