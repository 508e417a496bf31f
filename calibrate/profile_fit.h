// A whole hardware profile from one calibration samples document
// (reports/schemas/calibration-samples.schema.json): compute_fit.h for GEMM, memory-bound,
// launch and copy items; collective_fit.h and topology_fit.h for collective items. Pure.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "simulator/hardware/hardware.h"

namespace shardsim::calibrate {

struct SamplesSource {
  std::string file;         // where the samples document is (for provenance)
  double memory_bytes = 0;  // device memory; cpu: the caller's host RAM share per rank. 0: base
};

// The profile a samples document describes, starting from `base` (kept where the samples measure
// nothing). cuda: peaks per dtype = max(base peak, best measured GEMM of that dtype). cpu: the
// CPU is described as a device: every peak (fp32, fp16, bf16) is the best measured sgemm FLOP/s
// (no tensor cores; fp8 0), hbm_bytes_per_second the best memory-bound rate, memory_bytes from
// `src`; the description says so. compute.kind "measured" with one GemmPoint per GEMM item
// (efficiency = FLOP/s / that peak), memory_bound_points, launch_overhead_s;
// pcie_bytes_per_second the best copy rate / kPcieCopyEfficiency (so the model's copy time
// reproduces it); network: fitted collectives per (op, ranks,
// ranks_per_node) plus the topology fit of the same rows. Provenance: fitted, the samples file
// and item range, the sweep's date, fit ranges and residuals.
// Throws std::invalid_argument naming the key when the document lacks one the fits need.
// The memory_bytes to give profile_from_samples for `samples`: for a cpu-backend document the
// CPU backend's device memory, this machine's physical RAM / context.mpi.ranks_per_node (the
// machine running `calibrate` or `fit`, assumed to be the one that measured); 0 (keep the base's,
// or context.backend.device.memory_bytes) for cuda. Throws nlohmann::json::exception when the
// document has no context.backend.backend.
[[nodiscard]] double samples_memory_bytes(const nlohmann::json& samples);

[[nodiscard]] GpuProfile profile_from_samples(const nlohmann::json& samples, const GpuProfile& base,
                                              const SamplesSource& src);

}  // namespace shardsim::calibrate
