// Compute and host fits: GEMM efficiency over shape and dtype (the "measured" compute model),
// memory-bound bandwidth over bytes, launch overhead and host-copy bandwidth, from calibration
// samples (reports/schemas/calibration-samples.schema.json) or GEMM CSVs. Pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulator/hardware/hardware.h"

namespace shardsim::calibrate {

// One measured GEMM: FLOP/s achieved on an (m, n, k) product of `dtype`.
struct GemmMeasurement {
  std::string dtype;  // fp32 | fp16 | bf16 | fp8
  double m = 0, n = 0, k = 0;
  double flops_per_second = 0;
  int line = 0;  // CSV line or sample item index
};

// GEMM CSV (the columns of the shared GEMM data set): `#` lines are the source header; the first
// other line names the columns. Needed: m, n, k (or best_m, best_n, best_k), tflops (or
// mamf_tflops), dtype; optional batch (m is multiplied by it: b independent products of m rows) and
// a device column (gpu or accelerator). Rows whose device does not contain `device` are skipped (""
// keeps all; a CSV with several devices then needs one). dtype names: fp32/float32, fp16/float16,
// bf16/bfloat16, fp8/fp8e4m3/fp8e5m2. Errors name "FILE:LINE".
[[nodiscard]] std::variant<std::vector<GemmMeasurement>, std::string> parse_gemm_csv(
    std::string_view text, const std::string& file, const std::string& device);

// GemmPoints: efficiency = flops_per_second / peak.for_dtype(dtype). A measurement above the
// peak or of a dtype with no peak is an error naming the row. Rows of one dtype that land on the
// same (m, n, k) -- a batched row folds into m, so b = 2, m = 1024 is the point m = 2048, as is
// a repeated measurement -- become one point with the mean of their efficiencies, in the order
// of the first such row: the table then holds one value per shape, and leave-one-out cannot
// predict a shape from its own copy.
// Rows of one shape whose efficiencies span more than `max_spread` (max / min; 0: no limit) are an
// error naming the lines of the two extremes: a GEMM table's repeats are one measurement. A
// calibration sweep's items are not: it times a shape plain and with B transposed, which may
// differ by more, so its fit passes 0.
[[nodiscard]] std::variant<std::vector<GemmPoint>, std::string> gemm_points(
    const std::vector<GemmMeasurement>& rows, const PeakFlops& peak, const std::string& file,
    double max_spread = 2);

// What adding one table's points to a profile's did (merge_gemm_points).
struct GemmMerge {
  std::size_t replaced = 0;          // the base profile's points of shapes the table measured
  std::vector<std::string> repeats;  // shapes an earlier table of the fit gave too
};
// Adds `fresh`, the points of table `file`, to `points`. A shape the base profile held is replaced
// by the new measurement. A shape an earlier table of the same fit gave (in `seen`, which maps
// "dtype MxNxK" to its table) keeps the faster point, and `repeats` names the shape, both tables
// and both rates: the same shape fitted twice weighted the interpolation toward it (found by
// review, 2026-11-29: `--gemm T --gemm T` doubled every point, silently). `seen` gains the table's
// shapes.
[[nodiscard]] GemmMerge merge_gemm_points(std::vector<GemmPoint>& points,
                                          const std::vector<GemmPoint>& fresh,
                                          const std::string& file,
                                          std::map<std::string, std::string>& seen);

// Leave-one-out check of the measured GEMM model (simulator/hardware/measured_efficiency.h):
// each point predicted from the other points of its dtype; returns |predicted - measured| /
// measured in percent, one entry per point whose dtype has at least 2 points (table order).
[[nodiscard]] std::vector<double> gemm_leave_one_out_pct(const std::vector<GemmPoint>& points);

// Fits of one samples document's non-collective items.
struct DeviceFits {
  std::vector<GemmMeasurement> gemms;                 // kind gemm
  double best_gemm_fp32 = 0;                          // best fp32 GEMM FLOP/s measured
  double hbm_bytes_per_second = 0;                    // best memory_bound bytes_per_second
  std::vector<MemoryBoundPoint> memory_bound_points;  // per kernel and size (see fit_device)
  double memory_bound_efficiency = 0;  // median of the points: kernels without a class of their own
  double launch_overhead_s = 0;        // median seconds_per_launch of the launch items
  double copy_bytes_per_second = 0;    // host copy: bytes_per_second of the largest copy item
  double memory_bound_residual = 0;  // spread of one kernel's rates at one size: RMS (r/median - 1)
};

// Memory-bound bandwidth over bytes, one curve per kernel class (params.op: layernorm, softmax,
// gelu, adam, ... of core/memory_kernel.h; an unknown or missing op joins the generic curve):
// B = max over items of bytes_per_second; each (kernel, size) point
//   efficiency(bytes) = median over the items of that kernel and size of bytes_per_second / B
// (piecewise-linear in log(bytes) between points of one kernel,
// simulator/hardware/measured_efficiency.h). Kernels of one class do the same arithmetic per
// byte, but classes differ: exp/tanh-bound softmax and GeLU run far below a norm on a CPU.
// memory_bound_efficiency, the curve of ops with no class of their own (embedding gather, rotary,
// router, an SGD step), is the median efficiency over all the points.
// Launch overhead: median of the launch items' seconds_per_launch. Host copy: the best copy
// rate (kind copy; host_to_device on cuda, host_to_host on cpu).
[[nodiscard]] DeviceFits fit_device(const nlohmann::json& samples);

// Fitted figures that no GPU reaches, as warnings for the tables fit reads (--gemm, --gemm-best,
// --hbm; not --samples, whose CPU or GPU measured itself): fit prints them and still writes the
// profile, since a slow device is not an error. They are what a table in the wrong unit (GFLOP/s
// in a tflops column, MB/s read as GB/s) or measured on another device gives; until 2026-11-29 a
// GEMM table 1000x too slow was fitted silently, at 0.08 % of the A100's peak. The floor is
// kImplausibleEfficiency (5 %):
// - implausible_gemm_points: per dtype, the table's fastest point with m, n and k all at least
//   kPlausibleGemmDim (2048). 2048^3 runs at 71 % of the A100's fp16 peak and 51 % of the H100's
//   fp8 peak in the Azure cuBLASLt table (scenarios/measurements/gemm/), the slowest such figures
//   we hold: a margin of 10x. Smaller or skinny products (decode's m = 8-32) are bandwidth- or
//   latency-bound and may run at a few per cent, so they do not count.
// - implausible_efficiency: a best-shape GEMM efficiency (77-87 % in the shipped presets) or a
//   memory-bound one (60-89 % in the shipped and fitted profiles).
inline constexpr double kImplausibleEfficiency = 0.05;
// The lowest gemm_peak_efficiency and memory_bound_efficiency a profile accepts (its schema's
// range); fit refuses a table that gives less, with the same unit hint.
inline constexpr double kMinProfileEfficiency = 0.01;
inline constexpr double kPlausibleGemmDim = 2048;
[[nodiscard]] std::vector<std::string> implausible_gemm_points(const std::vector<GemmPoint>& points,
                                                               const std::string& device);
// `what` names the figure ("compute.gemm_peak_efficiency"), `unit_hint` the unit to check.
[[nodiscard]] std::optional<std::string> implausible_efficiency(double efficiency,
                                                                const std::string& what,
                                                                const std::string& unit_hint);

}  // namespace shardsim::calibrate
