#include "simulator/memory/plan_facts.h"

#include <algorithm>
#include <array>
#include <vector>

namespace shardsim::memory_detail {
namespace {

void add_groups(const std::vector<ParamGroup>& groups, const Plan& plan, LocalParams& lp,
                double& layer_sum) {
  for (const auto& g : groups) {
    double n = g.count;
    if (g.shard == ParamShard::kTensor) n /= plan.tp;
    if (g.shard == ParamShard::kExpert) n /= double(plan.ep) * plan.tp;
    layer_sum += n;
    if (g.shard == ParamShard::kExpert) {
      lp.expert += n;
      if (g.gemm_weight) lp.expert_gemm += n;
    } else {
      lp.dense += n;
      if (g.gemm_weight) lp.dense_gemm += n;
    }
  }
}

}  // namespace

PlanFacts plan_facts(const Scenario& s, const Plan& plan) {
  const ModelConfig& m = s.model;
  const auto& t = s.training;
  PlanFacts f;
  f.act = {plan.tp, s.strategy.sp && plan.tp > 1, s.strategy.recompute, t.precision};
  f.shape = op_shape(s, plan);  // the window changes no saved tensor, cp_heads one (ops.cc)
  f.vocab = padded_vocab(m.vocab, plan.tp);
  ActivationOptions no_recompute = f.act;
  no_recompute.recompute = Recompute::kNone;
  for (int l = 0; l < m.layers && !(f.kind[0].ready && f.kind[1].ready); ++l) {
    KindFacts& k = f.kind[m.is_moe_layer(l) ? 1 : 0];
    if (k.ready) continue;
    k.ready = true;
    add_groups(layer_params(m, l), plan, k.params, k.unit);
    const auto ops = layer_ops(m, l, f.shape);
    k.saved = layer_activation_bytes(ops, f.shape.seq_local * f.shape.micro_batch, double(m.hidden),
                                     f.act);
    k.saved_full = saved_bytes(ops, no_recompute);
  }
  f.embedding_params = embedding_params(m, f.vocab, t.seq_len);
  // Tied embeddings with pp > 1: the last stage keeps its own copy of the word embedding.
  f.output_params = output_params(m, f.vocab, !m.tied_embeddings || plan.pp > 1);
  f.embedding_saved = saved_bytes(embedding_ops(m, f.vocab, f.shape), f.act);
  f.output_saved = saved_bytes(output_ops(m, f.vocab, f.shape), f.act);
  return f;
}

PlanFactsKey plan_facts_key(const Scenario& s, const Plan& plan) {
  const auto& t = s.training;
  return {plan.tp,
          plan.cp,
          plan.ep,
          s.strategy.sp && plan.tp > 1,
          s.strategy.recompute,
          t.precision,
          t.seq_len,
          t.micro_batch,
          t.flash_attention,
          !s.model.tied_embeddings || plan.pp > 1,
          t.cross_entropy,
          s.strategy.cp_comm};
}

LocalParams stage_params(const Scenario& s, const Plan& plan, const PlanFacts& f,
                         const PipelineStage& st) {
  LocalParams lp;
  // The gather units in the order the forward pass runs them: the embedding, the blocks of each
  // chunk, the output layer (FSDP wraps embedding and output as units of their own under ZeRO-3).
  // `add` tracks the largest unit and the largest sum of parallel.zero3_prefetch + 1 consecutive
  // ones (the backward pass runs the same units in reverse, so the same windows), keeping the
  // last window's units in a ring on the stack: this runs for every stage of every plan a search
  // prices.
  constexpr std::size_t kMaxWindow = 65;  // parallel.zero3_prefetch <= 64 (sections.cc)
  std::array<double, kMaxWindow> ring{};
  const std::size_t window =
      std::min(kMaxWindow, std::size_t(std::max(0, s.strategy.zero3_prefetch)) + 1);
  std::size_t count = 0;
  double sum = 0;
  const auto add = [&](double unit) {
    lp.largest_layer = std::max(lp.largest_layer, unit);
    double& slot = ring[count++ % window];
    sum += unit - slot;  // the unit leaving the window (0 until it is full)
    slot = unit;
    lp.largest_window = std::max(lp.largest_window, sum);
  };
  if (st.has_embedding) {
    double unit = 0;
    add_groups(f.embedding_params, plan, lp, unit);
    add(unit);
  }
  for (const auto& c : st.chunks) {
    for (int l = c.first_layer; l < c.first_layer + c.layers; ++l) {
      const KindFacts& k = f.kind[s.model.is_moe_layer(l) ? 1 : 0];
      lp.dense += k.params.dense;
      lp.dense_gemm += k.params.dense_gemm;
      lp.expert += k.params.expert;
      lp.expert_gemm += k.params.expert_gemm;
      add(k.unit);
    }
  }
  if (st.has_output) {
    double unit = 0;
    add_groups(f.output_params, plan, lp, unit);
    add(unit);
  }
  return lp;
}

}  // namespace shardsim::memory_detail
