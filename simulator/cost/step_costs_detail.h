// Internals of compute_step_costs (step_costs.h), shared by its files: step_costs.cc (context,
// collective memo, assembly), kind_costs.cc (each block kind's, the embedding's and the output
// layer's op compute and parameters, memoised), grad_accumulation.cc (the gradient adds),
// layer_costs.cc (per-layer TP/CP/EP communication, ZeRO-3 gathers, host dispatch) and
// stage_costs.cc (data-parallel buckets, ZeRO gathers, optimizer and offload per pipeline stage);
// op_table.cc prices the same ops on the same context for `simulate --ops`. Not for other users.
#pragma once

#include <array>
#include <vector>

#include "simulator/cost/collective.h"
#include "simulator/cost/compute.h"
#include "simulator/cost/step_costs.h"
#include "simulator/model/params.h"

namespace shardsim::step_costs_detail {

// What every cost of one (scenario, plan) shares.
struct Ctx {
  const Scenario& s;
  const Plan& plan;
  OpContext op;
  OpShape shape;
  double act_bytes = 2;    // bytes per activation element
  double param_bytes = 2;  // bytes per parameter communicated
  double grad_bytes = 2;
  GroupPlacement tp, cp, ep, dp, edp, pp;
  // Memo of collective times: stages repeat the same bucket sizes (analytic fast path).
  struct Memo {
    CollectiveOp op;
    double bytes;
    int size, ranks_per_node;
    double seconds;
  };
  mutable std::array<Memo, 64> memo;  // the first memo_size entries (no allocation)
  mutable std::size_t memo_size = 0;
  mutable std::size_t last_hit = 0;  // stages repeat the last size: look there first
  const ZeroTraits* zero = nullptr;  // s.strategy.zero_facts()
};

[[nodiscard]] Ctx make_ctx(const Scenario& s, const Plan& plan);

// Seconds of one collective of `bytes` over `g` (0 for a group of one or no bytes), memoised.
[[nodiscard]] double coll(const Ctx& c, CollectiveOp op, double bytes, const GroupPlacement& g);

// The compute of each kind's ops and its parameters (kind_costs.h), and what they depend on.
[[nodiscard]] KindCostKey kind_cost_key(const Ctx& c);
[[nodiscard]] KindCosts kind_costs(const Ctx& c, double vocab);

// A parameter group's parameters on one rank: TP splits the tensor-sharded groups, EP x TP the
// routed experts; the rest are whole.
[[nodiscard]] inline double params_on_rank(const Ctx& c, const ParamGroup& g) {
  if (g.shard == ParamShard::kExpert) return g.count / (double(c.plan.ep) * c.plan.tp);
  return g.shard == ParamShard::kTensor ? g.count / c.plan.tp : g.count;
}

// Per parameter and micro-batch, the bytes the gradient accumulation's adds move, [0] for a group
// whose gradient no linear layer's GEMM writes (embeddings, norms, biases, router), [1] for one
// whose gradient it does (training.grad_accumulation_fusion false: the gradient read, the buffer
// read and written, and with grad_accumulation_cast "separate" the copy into an FP32 temporary;
// with fusion the GEMM accumulates, 0, and only [0]'s groups are added by Megatron's hook, with
// ZeRO 0/1); its
// kernels for `groups` on one rank summed over the groups ([0] the copy to FP32, zero without
// one; [1] the add), and their seconds added to `kc`'s backward-weight compute
// (grad_accumulation.cc).
[[nodiscard]] std::array<double, 2> grad_add_bytes(const Ctx& c);
[[nodiscard]] std::array<OpCost, 2> main_grad_accumulation_costs(
    const Ctx& c, const std::vector<ParamGroup>& groups);
void add_main_grad_accumulation(const Ctx& c, const std::vector<ParamGroup>& groups, KindCost& kc);

// One transformer block (blocks of one kind cost the same), the input embedding and the output
// layer (final norm, logits, loss), per micro-batch on one rank, from their kind's op costs.
[[nodiscard]] LayerCost layer_cost(const Ctx& c, int layer, const KindCost& kc);
[[nodiscard]] LayerCost embedding_cost(const Ctx& c, const KindCost& kc);
[[nodiscard]] LayerCost output_cost(const Ctx& c, const KindCost& kc);

// Stage `st`'s data-parallel, optimizer and offload costs from its layers' parameters (`costs`
// with its kinds, embedding and output filled).
[[nodiscard]] StageCost stage_cost(const Ctx& c, const PipelineStage& st, const StepCosts& costs);

}  // namespace shardsim::step_costs_detail
