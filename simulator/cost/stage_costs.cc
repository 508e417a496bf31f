// Per-stage costs of compute_step_costs: gradient buckets and their reduction, ZeRO parameter
// gathers, data-parallel wire bytes, the optimizer step and offload copies (step_costs_detail.h).
#include <algorithm>

#include "simulator/cost/step_costs_detail.h"
#include "simulator/model/params.h"

namespace shardsim::step_costs_detail {
namespace {

// Parameters of the stage beyond its blocks: embedding (first) and output (last) layers, on one
// rank (their LayerCosts hold them).
void extra_params(const PipelineStage& st, const StepCosts& costs, double& first_bucket,
                  double& last_bucket) {
  if (st.has_output) first_bucket += costs.output.dense_params;
  if (st.has_embedding) last_bucket += costs.embedding.dense_params;
}

double reduce_seconds(const Ctx& c, double dense, double expert) {
  const CollectiveOp op =
      c.zero->reduce_scatters_grads ? CollectiveOp::kReduceScatter : CollectiveOp::kAllReduce;
  return coll(c, op, dense * c.grad_bytes, c.dp) + coll(c, op, expert * c.grad_bytes, c.edp);
}

// Optimizer bytes touched per parameter. The Adam (or SGD) update itself: the gradient read; the
// FP32 master copy and each FP32 moment (Adam: 2, SGD: 1) read and written; mixed precision also
// writes the low-precision copy (28 B with 2-byte gradients). With effects.optimizer_traffic on,
// the rest of a mixed-precision optimizer step as Megatron-LM runs it (Float16OptimizerWithFloat16
// Params): low-precision gradients are copied into FP32 main gradients (read g, write 4), FP16's
// loss scale is removed with an inf/NaN check (read 4, write 4), the gradient norm for clipping
// reads them (4), the update reads the FP32 gradient (4, not g), the FP32 master is copied into
// the model's parameters (read 4, write p) and the model's gradient buffer is zeroed (write g).
// FP16 with 2-byte gradients: 6 + 8 + 4 + 28 + 6 + 2 = 54 B; BF16: 46 B; FP32 main gradients
// (grad_dtype fp32) skip the copy. FP32 training adds the norm read and the zeroing.
// training.grad_clip_scaling "always" (PyTorch's clip_grad_norm_, which multiplies every step)
// adds the scaling of the gradients it clips, the FP32 (main) ones, read and written: 8 B;
// Megatron scales only in steps whose norm exceeds the limit ("when_clipped", not counted).
// Measured on an H200 (2026-11-30, calibrate/h200-sxm-2026-11-30, prof-gpt.json): PyTorch's norm,
// scale, fused AdamW, copy to bf16 and zeroing kernels move 4 + 8 + 28 + 6 + 4 = 50 B per parameter
// with FP32 gradient buffers.
double optimizer_bytes_per_param(const Ctx& c) {
  const auto& t = c.s.training;
  const double moments = t.optimizer == Optimizer::kSgd ? 8 : 16;
  const double master = 8;
  const bool full = c.s.effects.optimizer_traffic;
  const bool scale_always = t.grad_clip_scaling == GradClipScaling::kAlways;
  if (t.precision == Dtype::kFp32)  // params are master
    return c.grad_bytes + master + moments + (full ? 4 + c.grad_bytes + (scale_always ? 8 : 0) : 0);
  if (!full) return c.grad_bytes + master + moments + c.param_bytes;
  const double copy_to_main = c.grad_bytes < 4 ? c.grad_bytes + 4 : 0;
  const double unscale = t.precision == Dtype::kFp16 ? 8 : 0;
  const double norm = 4;
  const double scale = scale_always ? 8 : 0;  // the FP32 main gradients, read and written
  const double update = 4 + master + moments;
  const double copy_to_model = 4 + c.param_bytes;
  return copy_to_main + unscale + norm + scale + update + copy_to_model + c.grad_bytes;
}

// Bytes one GPU puts on the wire for data parallelism per step: nccl-tests bus factor x size.
// DDP all-reduces the gradients (2(n-1)/n); ZeRO-1/2 reduce-scatter them and all-gather the
// parameters ((n-1)/n each); ZeRO-3 gathers each layer's parameters in forward and backward and
// reduce-scatters its gradients, every micro-batch.
double dp_wire_bytes(const Ctx& c, double dense, double expert) {
  const int n = c.dp.size, ne = c.edp.size;
  const ZeroTraits& zero = *c.zero;
  if (!zero.reduce_scatters_grads)
    return bus_factor(CollectiveOp::kAllReduce, n) * dense * c.grad_bytes +
           bus_factor(CollectiveOp::kAllReduce, ne) * expert * c.grad_bytes;
  const double rs = bus_factor(CollectiveOp::kReduceScatter, n) * dense * c.grad_bytes +
                    bus_factor(CollectiveOp::kReduceScatter, ne) * expert * c.grad_bytes;
  const double ag = bus_factor(CollectiveOp::kAllGather, n) * dense * c.param_bytes +
                    bus_factor(CollectiveOp::kAllGather, ne) * expert * c.param_bytes;
  const double m = double(c.plan.micro_batches);
  const double reduced = zero.reduces_every_microbatch ? rs * m : rs;  // sharded grads
  if (zero.gathers_params_per_layer) return reduced + 2 * ag * m;      // forward and backward
  return reduced + ag;                                                 // after the step
}

}  // namespace

StageCost stage_cost(const Ctx& c, const PipelineStage& st, const StepCosts& costs) {
  StageCost sc;
  double dense = 0, expert = 0, first_extra = 0, last_extra = 0;
  extra_params(st, costs, first_extra, last_extra);
  double bucket_dense = first_extra, bucket_expert = 0;
  const ZeroTraits& zero = *c.zero;
  const bool zero3 = zero.gathers_params_per_layer;
  // Bucket size, as the memory model's overheads: DDP's bucket bytes, DeepSpeed's ZeRO-1/2
  // bucket elements.
  const double bucket_params = !zero.reduce_scatters_grads
                                   ? c.s.overheads.ddp_bucket_bytes / c.grad_bytes
                                   : c.s.overheads.zero_bucket_elements;
  if (!zero3) sc.buckets.reserve(std::size_t(st.layers()) + 1);
  struct {
    double dense = -1, expert = -1, seconds = 0;
  } last;
  for (auto chunk = st.chunks.rbegin(); chunk != st.chunks.rend(); ++chunk) {
    for (int l = chunk->first_layer + chunk->layers - 1; l >= chunk->first_layer; --l) {
      const LayerCost& lc = costs.layer(l);
      bucket_dense += lc.dense_params;
      bucket_expert += lc.expert_params;
      dense += lc.dense_params;
      expert += lc.expert_params;
      if (!zero3 && bucket_dense + bucket_expert >= bucket_params) {
        // Equal blocks fill equal buckets: the previous bucket's time serves again.
        if (bucket_dense != last.dense || bucket_expert != last.expert)
          last = {bucket_dense, bucket_expert, reduce_seconds(c, bucket_dense, bucket_expert)};
        sc.buckets.push_back({l, (bucket_dense + bucket_expert) * c.grad_bytes, last.seconds});
        bucket_dense = bucket_expert = 0;
      }
    }
  }
  dense += first_extra + last_extra;
  bucket_dense += last_extra;
  if (!zero3 && bucket_dense + bucket_expert > 0)
    sc.buckets.push_back({-1, (bucket_dense + bucket_expert) * c.grad_bytes,
                          reduce_seconds(c, bucket_dense, bucket_expert)});
  // Tied embeddings across pipeline stages: the first stage's input embedding and the last
  // stage's output layer hold one matrix twice, and Megatron's finalize_model_grads all-reduces
  // its gradient between the two (_allreduce_embedding_grads), after the data-parallel
  // reduction: V_padded / TP x hidden gradient elements over a group of 2, on one node when the
  // whole pipeline is (found by review, 2026-11-28: the step charged nothing for it). Queued as
  // the stage's last bucket, once per step also under ZeRO-2 (until 2026-11-29 every micro-batch,
  // found by a review of that day's ZeRO-2 work).
  if (!zero3 && c.plan.pp > 1 && c.s.model.tied_embeddings && (st.has_embedding || st.has_output)) {
    const double elements =
        padded_vocab(c.s.model.vocab, c.plan.tp) / c.plan.tp * double(c.s.model.hidden);
    const GroupPlacement pair{2, c.pp.ranks_per_node >= c.plan.pp ? 2 : 1};
    sc.buckets.push_back({-1, elements * c.grad_bytes,
                          coll(c, CollectiveOp::kAllReduce, elements * c.grad_bytes, pair), true});
  }
  sc.dp_wire_bytes = dp_wire_bytes(c, dense, expert);
  if (zero.gathers_params_after_step)
    sc.param_gather_seconds = coll(c, CollectiveOp::kAllGather, dense * c.param_bytes, c.dp) +
                              coll(c, CollectiveOp::kAllGather, expert * c.param_bytes, c.edp);
  const double shard =
      zero.shards_optimizer ? dense / c.dp.size + expert / c.edp.size : dense + expert;
  const GpuProfile& gpu = c.s.cluster.gpu;
  if (c.s.strategy.offload_optimizer) {
    sc.offload_d2h_seconds = host_copy_seconds(shard * c.grad_bytes, gpu);
    sc.host_optimizer_seconds = shard / gpu.cpu_optimizer_params_per_second;
    sc.offload_h2d_seconds = host_copy_seconds(shard * c.param_bytes, gpu);
  } else {
    const MemoryKernel kernel =
        c.s.training.optimizer == Optimizer::kSgd ? MemoryKernel::kAny : MemoryKernel::kAdam;
    sc.optimizer_seconds =
        optimizer_step_cost(shard, optimizer_bytes_per_param(c), kernel, gpu).seconds;
  }
  return sc;
}

}  // namespace shardsim::step_costs_detail
