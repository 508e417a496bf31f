// A kernel benchmark as data: one Descriptor per (kernel, size, dtype, group). Backends build the
// list; one timing loop (timing_loop.h) runs every descriptor the same way. Modelled on the
// nccl-tests descriptor (bytes, init, bandwidth, run), plus verification against a reference.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace shardsim::kernels {

enum class Kind { kGemm, kMemoryBound, kCollective, kCopy, kLaunch };

// "gemm", "memory_bound", "collective", "copy", "launch" (the `kind` key of a samples item).
[[nodiscard]] std::string_view kind_name(Kind kind);

// What one run does, from which the loop derives a rate. Exactly the fields that apply are set.
struct Work {
  double flops = 0;  // GEMM: 2*m*n*k per run
  // Memory-bound: bytes read + written per run; copy: bytes copied; collective: the nccl-tests
  // size S (published/nccl-cost-model.md section 7); launch: 0.
  double bytes = 0;
  // Collective only: busbw = (S / t) * busbw_factor (AllReduce 2(n-1)/n, ReduceScatter, AllGather
  // and AlltoAll (n-1)/n, SendRecv 1). 0 for every other kind.
  double busbw_factor = 0;
  // Launch only: empty kernels (or empty tasks) dispatched per run.
  double launches = 0;
};

struct Verification {
  bool ok = false;
  std::string detail;  // "max rel error 1.2e-07 over 4096 elements", or the first mismatch
};

// One prepared benchmark: buffers allocated and filled by Descriptor::setup.
class Instance {
 public:
  virtual ~Instance() = default;
  // Executes the kernel `times` times back to back. Device backends only enqueue; the Timer waits.
  virtual void run(int times) = 0;
  // Checks the output of exactly one run after setup against a reference (the loop calls it once,
  // before warm-up), and may then replace the inputs with the data the loop times (GEMMs:
  // gemm_check.h make_timing_inputs). Throws CallError when a library call fails.
  [[nodiscard]] virtual Verification verify() = 0;
};

struct Descriptor {
  Kind kind = Kind::kGemm;
  std::string name;       // unique within a sweep, e.g. "gemm/fp32/256x384x128/nt"
  nlohmann::json params;  // m, n, k, dtype / bytes, rows, cols / op, ranks, ranks_per_node
  Work work;
  std::function<std::unique_ptr<Instance>()> setup;  // allocates; may throw CallError
};

// Measures wall time of Instance::run(times) including completion (steady clock on the host,
// CUDA events on a device). Returns seconds.
class Timer {
 public:
  virtual ~Timer() = default;
  [[nodiscard]] virtual double time(Instance& instance, int times) = 0;
  [[nodiscard]] virtual std::string_view name() const = 0;  // recorded in the samples context
};

// std::chrono::steady_clock around the call; for host work.
class SteadyClockTimer final : public Timer {
 public:
  [[nodiscard]] double time(Instance& instance, int times) override;
  [[nodiscard]] std::string_view name() const override { return "std::chrono::steady_clock"; }
};

}  // namespace shardsim::kernels
