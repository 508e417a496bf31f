// Fused-attention (FlashAttention) efficiency from a published benchmark table: the rows of one
// device become the profile's compute.attention_points (simulator/hardware/hardware.h). Pure
// functions; the caller passes the file's text.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "simulator/hardware/hardware.h"

namespace shardsim::calibrate {

// One measured forward + backward pass: `flops_per_second` counts executed FLOPs (forward
// 4 * batch * heads * seq^2 * head_dim, halved under the causal mask; backward 2.5x the forward).
struct AttentionMeasurement {
  std::string device;  // the gpu column
  std::string kernel;  // the implementation measured (flash-attention-2, flash-attention-triton)
  std::string dtype;   // fp16 | bf16
  bool causal = false;
  double head_dim = 0, seq = 0, batch = 0, heads = 0;
  double flops_per_second = 0;
  int line = 0;
};

// Attention CSV ('#' lines are the source header; the first other line names the columns):
// gpu, kernel, dtype (fp16/float16, bf16/bfloat16), causal (true/false), head_dim, seq_len,
// batch, heads, fwd_bwd_tflops; other columns are ignored. Rows whose gpu does not match `device`
// (device_matches: '|'-separated parts, "" keeps all) are skipped; rows of more than one device
// left, a missing column, a value that is not a positive number (head_dim, seq_len, batch, heads
// >= 1), an empty kernel, an unknown dtype or mask, or two rows of one (device, kernel, causal,
// head_dim, seq_len) are errors naming "FILE:LINE".
[[nodiscard]] std::variant<std::vector<AttentionMeasurement>, std::string> parse_attention_csv(
    std::string_view text, const std::string& file, const std::string& device);

// AttentionPoints (of the row's kernel): efficiency = flops_per_second / the dtype's dense peak
// (`peak_fp16` for fp16 rows, `peak_bf16` for bf16), batch_heads = batch * heads. A rate above that
// peak, or a dtype without one, is an error naming the row.
[[nodiscard]] std::variant<std::vector<AttentionPoint>, std::string> attention_points(
    const std::vector<AttentionMeasurement>& rows, const PeakFlops& peak, const std::string& file);

// A kernel that the table measured on another device but not on this one, carried over by its
// speed relative to a reference kernel measured on both: at each (mask, head_dim, seq_len) where
// `from` has `kernel` and `reference` and `target` has `reference`,
//   efficiency = target's reference efficiency x from's kernel FLOP/s / from's reference FLOP/s.
// The assumption is that the two kernels keep their speed ratio across the devices (both
// FlashAttention kernels of one generation, say, compiled to the same tensor-core instructions);
// the caller states it in the provenance. `target_points` are this device's points (its
// reference's efficiency, attention_points above); `target_rows` and `from_rows` the parsed rows
// of each device. Errors (naming `file`): `kernel` equal to `reference`, `target_rows` measuring
// `kernel` itself, no key with all three rates, or a derived efficiency above 1.
[[nodiscard]] std::variant<std::vector<AttentionPoint>, std::string> relative_attention_points(
    const std::vector<AttentionPoint>& target_points,
    const std::vector<AttentionMeasurement>& target_rows,
    const std::vector<AttentionMeasurement>& from_rows, const std::string& kernel,
    const std::string& reference, const std::string& file);

// Leave-one-out check of the lookup (simulator/hardware/measured_efficiency.h): each point
// predicted from the other points of its kernel and mask; |predicted - measured| / measured in
// percent, one entry per point whose kernel and mask have another point (table order).
[[nodiscard]] std::vector<double> attention_leave_one_out_pct(
    const std::vector<AttentionPoint>& points);

}  // namespace shardsim::calibrate
