// Unfused gradient accumulation (training.grad_accumulation_fusion false): the add of each weight
// gradient into its buffer, per micro-batch, in the backward-weight pass (step_costs_detail.h).
#include <vector>

#include "simulator/cost/step_costs_detail.h"
#include "simulator/model/params.h"

namespace shardsim::step_costs_detail {

// training.grad_accumulation_fusion false: each weight gradient is written by its GEMM in the
// parameters' dtype and then added into the gradient buffer by a kernel of its own, every
// micro-batch (Megatron's DDP hook main_grad.add_(grad) without --gradient-accumulation-fusion,
// whatever the buffer's dtype; the post-accumulate hook of a PyTorch script). Per parameter: the
// gradient read (param_bytes) and the buffer read and written (2 x grad_bytes): 10 B for bf16
// with FP32 main gradients, 6 B with 16-bit ones, 12 B in fp32. One elementwise add kernel per
// parameter group of shardsim's list on this rank (a LayerNorm's weight and bias are one group,
// a block's routed experts one), GPU time only: the host's issue of these adds is not counted
// (framework.op_dispatch_s is the cost of one op of the op list, a Megatron module's several
// PyTorch operators, while each add is one in-place operator, 7.1-8.5 us on an H200's host in
// calibrate/h200-sxm-2026-11-27/torch-reference.txt). Priced on the rank's whole (TP/EP-local)
// gradient, as Megatron's DDP buffer holds it; a stack that accumulates on ZeRO-2/3 shards adds
// less. Measured on an H200 (2026-11-30, calibrate/h200-sxm-2026-11-30, prof-gpt.json): 2.1 ms of
// a 58 ms forward+backward at h 2048, 8.3 ms of 89 ms at h 8192, 10 B per parameter at 2.5 TB/s.
// With fusion (the default) nothing is added: the GEMM accumulates into the buffer. Megatron's
// hook still adds the gradients of what is not a fused linear layer (embedding, norms, biases);
// not counted either way.
double main_grad_add_bytes(const Ctx& c) {
  return c.s.training.grad_accumulation_fusion ? 0 : c.param_bytes + 2 * c.grad_bytes;
}

void add_main_grad_accumulation(const Ctx& c, const std::vector<ParamGroup>& groups, KindCost& kc) {
  const double bytes = main_grad_add_bytes(c);
  if (bytes <= 0) return;
  double seconds = 0;
  for (const auto& g : groups) {
    const double n = g.shard == ParamShard::kExpert   ? g.count / (double(c.plan.ep) * c.plan.tp)
                     : g.shard == ParamShard::kTensor ? g.count / c.plan.tp
                                                      : g.count;
    if (n <= 0) continue;
    seconds +=
        memory_bound_cost(n * bytes, c.s.cluster.gpu, MemoryKernel::kDropoutResidual).seconds;
  }
  kc.work.bwd_weight.add(TimeCategory::kCompute, seconds);
}

}  // namespace shardsim::step_costs_detail
