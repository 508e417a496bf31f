#include "simulator/evaluate/explain.h"

#include <stdexcept>

#include "simulator/evaluate/evaluate.h"
#include "simulator/scenario/load.h"

namespace shardsim {
namespace {

struct EffectInfo {
  const char* name;
  bool EffectSwitches::*flag;
  const char* description;
};

constexpr EffectInfo kEffects[] = {
    {"host_dispatch", &EffectSwitches::host_dispatch,
     "the framework's host time to issue each work item bounds it (cost/host_dispatch.h); off: "
     "the host is never the bottleneck"},
    {"gemm_shape", &EffectSwitches::gemm_shape,
     "GEMM efficiency by shape from the profile's measured table; off: the roofline closed form "
     "at the best-shape efficiency, with the closed form's launch per GEMM (a measured time holds "
     "it already)"},
    {"kernel_bandwidth", &EffectSwitches::kernel_bandwidth,
     "memory-bound efficiency per kernel class and size from the profile's curves; off: one "
     "scalar efficiency for every streaming kernel, with the closed form's launch per kernel"},
    {"attention_kernel", &EffectSwitches::attention_kernel,
     "flash attention at the profile's measured FlashAttention rate by sequence length, head "
     "dimension and mask (compute.attention_points); off: the efficiency of its score GEMM's "
     "shape"},
    {"fitted_collectives", &EffectSwitches::fitted_collectives,
     "collective times from the network's measured curves (latency-bound small messages "
     "included); off: the topology formula"},
    {"comm_contention", &EffectSwitches::comm_contention,
     "compute slows while a collective overlaps it: data-parallel traffic, and TP traffic under "
     "parallel.overlap_tp_comm (cost/contention.h, the profile's overlap_compute_slowdown); off: "
     "overlapped communication is free"},
    {"optimizer_traffic", &EffectSwitches::optimizer_traffic,
     "the mixed-precision optimizer's full traffic (gradient copy, unscale, norm, parameter "
     "copy, and with training.grad_clip_scaling always the clipping's scale); off: the update "
     "alone (28 B per parameter with 2-byte gradients)"},
    {"cross_entropy_traffic", &EffectSwitches::cross_entropy_traffic,
     "the loss over the vocabulary moves the bytes of its implementation (training.cross_entropy: "
     "Megatron's vocabulary-parallel fp32 passes 38 + 14 B per 16-bit logit, fused kernels 4 + 4 "
     "B; core/cross_entropy.h); off: a generic streaming op (4 + 8 B)"},
};

}  // namespace

std::vector<EffectContribution> explain_effects(const Scenario& s, Mode mode, double step_seconds) {
  std::vector<EffectContribution> out;
  for (const auto& info : kEffects) {
    EffectContribution c;
    c.name = info.name;
    c.description = info.description;
    c.enabled = s.effects.*info.flag;
    c.step_seconds_without = step_seconds;
    if (c.enabled) {
      Scenario off = s;
      off.effects.*info.flag = false;
      apply_effect_switches(off);
      EvaluateOptions o;
      o.mode = mode;
      o.memory_detail = MemoryDetail::kNumbers;
      auto e = evaluate(off, o);
      if (!e || !e->time)
        throw std::logic_error(std::string("internal error: the plan did not evaluate with ") +
                               info.name + " off");
      c.step_seconds_without = e->time->step_seconds;
    }
    c.seconds = step_seconds - c.step_seconds_without;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace shardsim
