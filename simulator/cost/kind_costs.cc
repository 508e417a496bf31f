// The compute of each block kind's ops, the embedding's and the output layer's on one rank, with
// their parameters and gradient accumulation: what KindCostCache memoises (kind_costs.h,
// step_costs_detail.h).
#include <algorithm>

#include "simulator/cost/step_costs_detail.h"
#include "simulator/model/ops.h"
#include "simulator/model/params.h"

namespace shardsim::step_costs_detail {
namespace {

bool is_attention_core(const Op& op) {
  switch (op.kind) {
    case OpKind::kAttentionScore:
    case OpKind::kAttentionValue:
    case OpKind::kFlashAttention:
    case OpKind::kSoftmax:
      return true;
    default:
      return std::any_of(op.saves.begin(), op.saves.end(),
                         [](const SavedTensor& t) { return t.attention_core; });
  }
}

bool is_gemm(const Op& op) {
  return op.kind == OpKind::kGemm || op.kind == OpKind::kExpertGemm;
}

OpSums add_op_costs(const Ctx& c, const std::vector<Op>& ops, WorkCost& w) {
  OpSums sum;
  const GpuProfile& gpu = c.s.cluster.gpu;
  for (const auto& op : ops) {
    const OpCost f = op_cost(op, Pass::kForward, c.op, gpu);
    const OpCost bi = op_cost(op, Pass::kBackwardInput, c.op, gpu);
    const OpCost bw = op_cost(op, Pass::kBackwardWeight, c.op, gpu);
    w.fwd.add(TimeCategory::kCompute, f.seconds);
    w.bwd_input.add(TimeCategory::kCompute, bi.seconds);
    w.bwd_weight.add(TimeCategory::kCompute, bw.seconds);
    // Megatron's convention: backward = 2x forward. Flash attention's backward executes 2.5x (it
    // recomputes the scores): the extra half is hardware work, not model work. Its FLOPs are the
    // full, unmasked count (the convention MFU uses); under a causal mask the kernel executes
    // half of them, which is what HFU counts (found by review: HFU passed 100 % at long
    // sequences).
    // Under a sliding window the model counts the window's even share of keys whatever the
    // kernel, and the average context-parallel rank executes less than the busiest one the op is
    // timed at (Op::model_flops_scale, executed_flops_scale).
    const double share =
        (op.kind == OpKind::kFlashAttention && c.op.causal ? 0.5 : 1.0) * op.executed_flops_scale;
    const double executed = share * (f.flops + bi.flops + bw.flops);
    double model =
        (op.kind == OpKind::kFlashAttention ? 3 * f.flops : f.flops + bi.flops + bw.flops) *
        op.model_flops_scale;
    // GEMMs that TP does not split (router, MLA down projections) run on every TP rank; each
    // rank's share of the model's work is 1/tp of them.
    if (op.split == TpSplit::kNone && is_gemm(op)) model /= c.plan.tp;
    w.model_flops += model;
    w.hardware_flops += executed;
    sum.fwd_compute += f.seconds;
    sum.fwd_flops += share * f.flops;
    sum.ops += 1;
    if (is_gemm(op)) {
      sum.gemms += 1;
      sum.gemm_fwd += f.seconds;
      sum.gemm_bwd += bi.seconds + bw.seconds;
      sum.gemm_dgrad += bi.seconds;
      if (op.split == TpSplit::kColumn) {
        sum.col_dgrad += bi.seconds;
        sum.col_wgrad += bw.seconds;
      }
    }
    if (is_attention_core(op)) {
      sum.core_fwd += f.seconds;
      sum.core_bwd += bi.seconds;
      sum.core_flops += share * f.flops;
    }
  }
  return sum;
}

void split_params(const Ctx& c, int layer, KindCost& kc) {
  for (const auto& g : layer_params(c.s.model, layer))
    (g.shard == ParamShard::kExpert ? kc.expert_params : kc.dense_params) += params_on_rank(c, g);
}

// Parameters of the embedding or output layer on one rank (TP splits the tensor-sharded groups).
double tensor_split(const Ctx& c, const std::vector<ParamGroup>& groups) {
  double n = 0;
  for (const auto& g : groups) n += params_on_rank(c, g);
  return n;
}

}  // namespace

KindCostKey kind_cost_key(const Ctx& c) {
  const auto& t = c.s.training;
  const auto& m = c.s.model;
  return {c.plan.tp,
          c.plan.cp,
          c.plan.ep,
          c.op.sp,
          c.op.precision,
          c.op.tf32,
          t.seq_len,
          t.micro_batch,
          t.flash_attention,
          !m.tied_embeddings || c.plan.pp > 1,
          t.attention_kernel,
          c.op.cross_entropy,
          c.s.strategy.cp_comm,
          grad_add_bytes(c)};
}

KindCosts kind_costs(const Ctx& c, double vocab) {
  KindCosts out;
  const auto& m = c.s.model;
  // Blocks of one kind (block_kind) have the same ops: cost the first of each.
  for (int l = 0; l < m.layers; ++l) {
    const int k = block_kind(m, l, c.shape);
    if (out.has[k]) continue;
    out.has[k] = true;
    KindCost& kc = out.block[k];
    kc.sum = add_op_costs(c, layer_ops(m, l, c.shape), kc.work);
    split_params(c, l, kc);
    add_main_grad_accumulation(c, layer_params(m, l), kc);
  }
  const auto embedding = embedding_params(m, vocab, c.s.training.seq_len);
  out.embedding.sum = add_op_costs(c, embedding_ops(m, vocab, c.shape), out.embedding.work);
  out.embedding.dense_params = tensor_split(c, embedding);
  add_main_grad_accumulation(c, embedding, out.embedding);
  const auto output = output_params(m, vocab, !m.tied_embeddings || c.plan.pp > 1);
  out.output.sum = add_op_costs(c, output_ops(m, vocab, c.shape), out.output.work);
  out.output.dense_params = tensor_split(c, output);
  add_main_grad_accumulation(c, output, out.output);
  return out;
}

}  // namespace shardsim::step_costs_detail
