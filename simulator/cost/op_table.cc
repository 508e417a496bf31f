#include "simulator/cost/op_table.h"

#include "simulator/cost/step_costs_detail.h"
#include "simulator/model/ops.h"
#include "simulator/model/params.h"

namespace shardsim {
namespace {

void add_rows(const step_costs_detail::Ctx& c, const char* part, const std::vector<Op>& ops,
              std::vector<OpCostRow>& out) {
  for (const Op& op : ops) {
    OpCostRow r{part, std::string(op.name), op_kind_name(op.kind), {}};
    for (int p = 0; p < 3; ++p) r.pass[p] = op_cost(op, Pass(p), c.op, c.s.cluster.gpu);
    out.push_back(std::move(r));
  }
}

// The gradient accumulation's adds into the buffer (training.grad_accumulation_fusion false: of
// every weight gradient, and with grad_accumulation_cast separate the copies to FP32 before them;
// with fusion, Megatron's hook's adds of the groups no GEMM accumulates), one row each, in the
// backward-weight pass, summed over the part's parameter groups as the step prices them.
void add_grad_accumulation_rows(const step_costs_detail::Ctx& c, const char* part,
                                const std::vector<ParamGroup>& groups,
                                std::vector<OpCostRow>& out) {
  const auto costs = step_costs_detail::main_grad_accumulation_costs(c, groups);
  constexpr const char* kNames[2] = {"grad_copy_to_fp32", "grad_accumulate"};
  for (int k = 0; k < 2; ++k) {
    if (costs[k].seconds <= 0) continue;
    OpCostRow r{part, kNames[k], op_kind_name(OpKind::kElementwise), {}};
    r.pass[int(Pass::kBackwardWeight)] = costs[k];
    out.push_back(std::move(r));
  }
}

}  // namespace

std::string op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::kGemm:
      return "gemm";
    case OpKind::kExpertGemm:
      return "expert_gemm";
    case OpKind::kAttentionScore:
      return "attention_score";
    case OpKind::kAttentionValue:
      return "attention_value";
    case OpKind::kFlashAttention:
      return "flash_attention";
    case OpKind::kSoftmax:
      return "softmax";
    case OpKind::kNorm:
      return "norm";
    case OpKind::kActivationFn:
      return "activation";
    case OpKind::kDropout:
      return "dropout";
    case OpKind::kRouter:
      return "router";
    case OpKind::kEmbedding:
      return "embedding";
    case OpKind::kLoss:
      return "loss";
    case OpKind::kElementwise:
      return "elementwise";
  }
  return "gemm";
}

std::vector<OpCostRow> op_cost_rows(const Scenario& s, const Plan& plan) {
  const step_costs_detail::Ctx c = step_costs_detail::make_ctx(s, plan);
  const ModelConfig& m = s.model;
  std::vector<OpCostRow> out;
  const double vocab = padded_vocab(m.vocab, plan.tp);
  add_rows(c, "embedding", embedding_ops(m, vocab, c.shape), out);
  add_grad_accumulation_rows(c, "embedding", embedding_params(m, vocab, s.training.seq_len), out);
  // As kind_costs: the first block of each kind (block_kind).
  constexpr const char* kKindNames[kBlockKinds] = {"dense block", "MoE block",
                                                   "dense block, windowed", "MoE block, windowed"};
  bool seen[kBlockKinds] = {};
  for (int l = 0; l < m.layers; ++l) {
    const int k = block_kind(m, l, c.shape);
    if (seen[k]) continue;
    seen[k] = true;
    add_rows(c, kKindNames[k], layer_ops(m, l, c.shape), out);
    add_grad_accumulation_rows(c, kKindNames[k], layer_params(m, l), out);
  }
  add_rows(c, "output", output_ops(m, vocab, c.shape), out);
  add_grad_accumulation_rows(c, "output",
                             output_params(m, vocab, !m.tied_embeddings || plan.pp > 1), out);
  return out;
}

}  // namespace shardsim
