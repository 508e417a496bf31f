// A whole hardware profile from calibration samples documents
// (reports/schemas/calibration-samples.schema.json): compute_fit.h for GEMM, memory-bound,
// launch and copy items; collective_fit.h and topology_fit.h for collective items. Pure.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/samples_check.h"
#include "simulator/hardware/hardware.h"

namespace shardsim::calibrate {

// One samples document and where it came from.
struct SamplesInput {
  const nlohmann::json* doc = nullptr;
  std::string file;         // where the samples document is (for provenance and messages)
  double memory_bytes = 0;  // device memory; cpu: the caller's host RAM share per rank. 0: base
};

// A collective sample left out of the fit as stalled (leave_out_stalled): over kStallFactor times
// slower than a larger message of its group. Items are 0-based indices into the document's items.
struct SampleLeftOut {
  std::string collective;  // "all_reduce/2x1": op / ranks x ranks per node
  int item = 0;
  double seconds = 0;
  int larger_item = 0;
  double larger_seconds = 0;
};

// What one document gave the profile, for the fit report: each part ("gemm", "memory_bound",
// "launch", "copy", "collective all_reduce/2x1", ...) it measured, and of those the ones a later
// document measured again (the later one's values are used), and its collective samples left out.
struct SamplesUse {
  std::string file;
  std::string backend;  // cpu | cuda
  std::string host;
  std::string date;  // the sweep's date, YYYY-MM-DD
  bool complete = true;
  int items = 0;
  std::vector<std::string> used;
  std::vector<std::string> replaced;
  std::vector<SampleLeftOut> left_out;
};

struct SamplesProfile {
  GpuProfile profile;
  std::vector<SamplesUse> uses;  // one per document, in order
  // The device parts some document measured: "gemm <dtype>", "memory_bound", "launch", "copy";
  // and "collectives" when a collective was fitted.
  std::set<std::string> device_parts;
  // With warn_unfitted: the rows the fit does not represent, each named (unfitted_row_error).
  std::vector<std::string> warnings;
};

// True for a profile of the CPU backend (the CPU described as a device): its device_kind is "cpu"
// or, where device_kind is absent (profiles written before 2026-11-28), its description carries
// the sentence calibrate --backend cpu writes. device_kind "gpu" is a GPU whatever the text says.
[[nodiscard]] bool is_cpu_profile(const GpuProfile& g);

// The memory_bytes to give profile_from_samples for `samples`: for a cpu-backend document the
// CPU backend's device memory, the measuring host's physical RAM (context.backend.
// host_memory_bytes; this machine's for a document written before 2026-11-28, which lacks it) /
// context.mpi.ranks_per_node; 0 (keep the base's,
// or context.backend.device.memory_bytes) for cuda. Throws nlohmann::json::exception when the
// document has no context.backend.backend.
[[nodiscard]] double samples_memory_bytes(const nlohmann::json& samples);

// The profile the documents describe, starting from `base` (nullptr: none; kept where the
// samples measure nothing, and its provenance kept beside the new one, marked "base 'NAME'").
// Every document is checked (check_samples); all must be of one backend, and of the base's kind
// (a CPU profile for cpu samples, a GPU one for cuda).
// Device parts (GEMM, memory-bound, launch, copy): each from the last document that measured it.
// cuda: peaks per dtype = max(base peak, best measured GEMM of that dtype). cpu: the CPU is
// described as a device: every peak (fp32, fp16, bf16) is the best measured sgemm FLOP/s (no
// tensor cores; fp8 0), hbm_bytes_per_second the best memory-bound rate, memory_bytes from the
// input; the description says so. compute.kind "measured" with one GemmPoint per GEMM item
// (efficiency = FLOP/s / that peak), memory_bound_points, launch_overhead_s;
// pcie_bytes_per_second the largest copy's rate / kPcieCopyEfficiency (so the model's copy time
// reproduces it). Network: fitted collectives per (op, ranks, ranks_per_node) from every
// document (two documents measuring the same one are refused, naming both), plus one topology
// fit of all their rows. Provenance: fitted, each file with what it gave, the sweeps' dates, fit
// ranges and residuals. Throws std::invalid_argument naming the file and key when a document
// lacks one the fits need.
// `line_rates`: the network whose declared line rates bound the measured collectives (the
// base's node.network when it embeds none; null: the network the fit starts from).
// `network_start`: the network the collective fit starts from (fit --network-base; null: the
// base's own); `network_name`: the fitted network's name ("": "calibrated"). `warn_unfitted`:
// a collective row the fit does not represent goes into `warnings` instead of being refused.
[[nodiscard]] SamplesProfile profile_from_samples(const std::vector<SamplesInput>& docs,
                                                  const GpuProfile* base,
                                                  const NetworkConfig* line_rates = nullptr,
                                                  const NetworkConfig* network_start = nullptr,
                                                  const std::string& network_name = "",
                                                  bool warn_unfitted = false);

}  // namespace shardsim::calibrate
