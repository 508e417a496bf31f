// STAND-IN for calibrate's profile_from_samples (being written concurrently): builds a hardware
// profile of the CPU as a device from a cpu samples document (kernels/common/results.h), so that
// `shardsim validate` can be tested before `shardsim calibrate` exists. Swap for the real fit at
// merge. Pure: JSON in, GpuProfile out.
//
// What is fitted (only micro-benchmark samples; nothing from the composite workload):
//   peak.fp32 (= fp16 = bf16) = the fastest measured sgemm, FLOP/s; tf32 0 (no such format)
//   compute.kind "measured", gemm_points: one per (m, n, k), efficiency = flops / ((median -
//     launch) peak), the mean over the transposes measured at that shape
//   hbm_bytes_per_second = the fastest memory-bound item's bytes / (median - launch)
//   memory_bound_points: one per measured (rows, cols): bytes = mean over its ops,
//     efficiency = (sum of the ops' bytes / sum of their times) / hbm (the rate of the op mix)
//   compute.launch_overhead_s = the launch items' median seconds_per_launch (0 without one)
//   pcie_bytes_per_second = the fastest memcpy item (host "link" of a CPU device)
//   network.fitted_collectives: per (op, ranks, ranks_per_node), calibrate::fit_line of
//     t = alpha + busbw_factor S / busbw over every size (relative least squares)
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simulator/hardware/hardware.h"

namespace shardsim::calibrate {

// REQUIRES: `samples` has at least one verified gemm and one memory_bound item (std::
// invalid_argument naming what is missing otherwise). `memory_bytes`: the memory one rank may use.
// `source` names the samples file in the provenance.
[[nodiscard]] GpuProfile cpu_profile_for_validation(const nlohmann::json& samples,
                                                    double memory_bytes, const std::string& source);

}  // namespace shardsim::calibrate
