// Gradient accumulation: the add of each gradient that no GEMM accumulated into its buffer, per
// micro-batch, in the backward-weight pass (step_costs_detail.h).
#include <array>
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
// With fusion (the default) the weight-gradient GEMMs of the linear layers accumulate into the
// buffer and add nothing; the gradients of every other parameter (word and position embeddings,
// norms, biases, the MoE router) are still written by autograd in the parameters' dtype and added
// into the buffer by Megatron's hook, main_grad.add_(param.grad), every micro-batch
// (megatron/core/distributed/distributed_data_parallel.py _make_backward_post_hook: "if
// param.grad is not None and not param.grad_added_to_main_grad"; the fused wgrad sets
// grad_added_to_main_grad): param_bytes + 2 x grad_bytes per parameter, one kernel per group, as
// above, with ZeRO 0 or 1, whose whole buffer Megatron's DDP and distributed optimizer keep; the
// ZeRO-2/3 stacks (DeepSpeed, FSDP) have no such hook and accumulate otherwise (not modelled).
// For a GPT with a large vocabulary the word embedding is most of it (Megatron-Core's 1.7B of the
// 2024 table: 268 M of its 1.7 B parameters). Not counted: with tied embeddings and one pipeline
// stage, Megatron-Core's output layer hands autograd a zeroed dummy gradient for the shared table
// (zero_out_wgrad), one more fill and add of it.
// training.grad_accumulation_cast "separate" (DeepSpeed's BF16 optimizer, whose update_hp_grads
// runs hp_grad.add_(lp.grad.to(fp32)) after every micro-batch's backward, pipeline engine
// included; microsoft/DeepSpeed deepspeed/runtime/bf16_optimizer.py at 93e9307d6, the commit
// BLOOM's tr11 README names): the 16-bit gradient is first copied into an FP32 temporary by a
// kernel of its own (param_bytes read, grad_bytes written), which the add then reads in place of
// the gradient (3 x grad_bytes): 18 B per parameter for bf16 into FP32, two kernels per group.
// Where the gradient already has the buffer's dtype, .to() returns it and there is no copy.
// training.grad_accumulation_target "param_grad" (PyTorch autograd's .grad, set to None by each
// step's zero_grad): AccumulateGrad assigns the first micro-batch's gradient and adds each later
// one in place, `grad += new` (torch/csrc/autograd/functions/accumulate_grad.h), so a step of m
// micro-batches runs m - 1 adds, not m. They are spread evenly, (m - 1) / m of an add per
// micro-batch: the step's total is exact, the first micro-batch's backward 1/m of an add too long
// and each later one 1/m too short. Megatron-LM of 2021 accumulated so (LocalDDP without
// --use-contiguous-buffers-in-ddp, torch DDP under no_sync; the optimizer's zero_grad sets the
// grads to None: megatron/optimizer/optimizer.py at de7dc40f88), before the gradient
// accumulation fusion of 2022-02 (83b1e42f30).
namespace {

// The share of a step's micro-batches whose gradient is added (see above). The fused
// accumulation needs Megatron's buffer, so its hook adds every micro-batch.
double added_share(const Ctx& c) {
  const auto& t = c.s.training;
  if (t.grad_accumulation_fusion || t.grad_accumulation_target == GradAccumulationTarget::kMainGrad)
    return 1;
  const double m = double(c.plan.micro_batches);
  return (m - 1) / m;
}

// Whether a fused accumulation's GEMM writes the group's gradient into the buffer: the linear
// layers' weights (Transformer Engine's matmul weights and the output projection).
bool gemm_accumulated(const ParamGroup& g) {
  return g.gemm_weight || g.name == "output.weight";
}

// Bytes per parameter of each kernel for a group whose gradient a linear layer's GEMM writes
// (gemm) or not: [0] the copy to FP32 (0 without one), [1] the add, reading the copy or the
// gradient, and reading and writing the buffer. With fusion only the hook's add of the others.
std::array<double, 2> kernel_bytes(const Ctx& c, bool gemm) {
  const auto& t = c.s.training;
  if (t.grad_accumulation_fusion)
    return {0, gemm || c.zero->shards_grads ? 0 : c.param_bytes + 2 * c.grad_bytes};
  const bool cast = separate_grad_cast(c.s);
  return {cast ? c.param_bytes + c.grad_bytes : 0,
          (cast ? c.grad_bytes : c.param_bytes) + 2 * c.grad_bytes};
}

}  // namespace

std::array<double, 2> grad_add_bytes(const Ctx& c) {
  const double share = added_share(c);
  std::array<double, 2> out{};
  for (int gemm = 0; gemm < 2; ++gemm) {
    const auto bytes = kernel_bytes(c, gemm == 1);
    out[gemm] = (bytes[0] + bytes[1]) * share;
  }
  return out;
}

std::array<OpCost, 2> main_grad_accumulation_costs(const Ctx& c,
                                                   const std::vector<ParamGroup>& groups) {
  std::array<OpCost, 2> out{};
  const double share = added_share(c);
  if (share <= 0) return out;
  for (const auto& g : groups) {
    const double n = params_on_rank(c, g);
    if (n <= 0) continue;
    const auto bytes = kernel_bytes(c, gemm_accumulated(g));
    for (int k = 0; k < 2; ++k) {
      if (bytes[k] <= 0) continue;
      const OpCost one =
          memory_bound_cost(n * bytes[k], c.s.cluster.gpu, MemoryKernel::kDropoutResidual);
      out[k].seconds += one.seconds * share;
      out[k].bytes += one.bytes * share;
    }
  }
  return out;
}

void add_main_grad_accumulation(const Ctx& c, const std::vector<ParamGroup>& groups, KindCost& kc) {
  const auto costs = main_grad_accumulation_costs(c, groups);
  const double seconds = costs[0].seconds + costs[1].seconds;
  if (seconds > 0) kc.work.bwd_weight.add(TimeCategory::kCompute, seconds);
}

}  // namespace shardsim::step_costs_detail
