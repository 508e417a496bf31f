// What every pipeline stage of a plan shares for the memory model (memory.cc), computed once per
// plan: each block kind's local parameters and saved activations, the embedding and output
// layers' parameter groups and saved bytes; and a stage's local parameters from them.
// Internal to simulator/memory.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/memory/activations.h"
#include "simulator/model/ops.h"
#include "simulator/model/params.h"
#include "simulator/plan/plan.h"
#include "simulator/scenario/scenario.h"

namespace shardsim::memory_detail {

// Parameter elements on one rank, split by how ZeRO shards them.
struct LocalParams {
  double dense = 0, dense_gemm = 0;    // sharded over DP x CP
  double expert = 0, expert_gemm = 0;  // sharded over DP x CP / EP
  double largest_layer = 0;  // largest gather unit (block, embedding, output) on this rank
  // Largest sum of parallel.zero3_prefetch + 1 consecutive gather units, in execution order: what
  // ZeRO-3 holds gathered while one unit computes and the next ones are prefetched.
  double largest_window = 0;
  [[nodiscard]] double total() const { return dense + expert; }
};

// Facts of one block kind (dense or MoE) under the plan: every block of a kind holds the same
// parameters and saves the same tensors, on every stage.
struct KindFacts {
  bool ready = false;
  LocalParams params;     // one block's local parameters, split by how ZeRO shards them
  double unit = 0;        // their sum: one ZeRO-3 gather unit
  double saved = 0;       // activation bytes of one micro-batch (recomputation applied)
  double saved_full = 0;  // the same without recomputation (full recomputation's working set)
};

// What every stage of the plan shares, computed once per plan.
struct PlanFacts {
  ActivationOptions act;
  OpShape shape;
  double vocab = 0;
  // [0] dense, [1] MoE. A sliding window makes no kind of its own here: saved activations
  // and parameters do not depend on it (flash attention stores no scores, unfused stores all).
  KindFacts kind[2];
  std::vector<ParamGroup> embedding_params, output_params;
  double embedding_saved = 0, output_saved = 0;
};

[[nodiscard]] PlanFacts plan_facts(const Scenario& s, const Plan& plan);

// What plan_facts reads besides the model: the activation options, the token shape, the padded
// vocabulary (tp), the TP and EP splits of the parameters, whether the output layer holds its own
// projection.
struct PlanFactsKey {
  int tp = 1, cp = 1, ep = 1;
  bool sp = false;  // sequence parallelism in effect (sp && tp > 1)
  Recompute recompute = Recompute::kNone;
  Dtype precision = Dtype::kBf16;
  std::int64_t seq_len = 0, micro_batch = 1;
  bool flash_attention = false;
  bool output_projection = false;  // untied embeddings, or pp > 1
  CrossEntropyKernel cross_entropy = CrossEntropyKernel::kVocabParallel;  // what the loss keeps
  CpComm cp_comm = CpComm::kP2p;  // the all-to-all keeps one more attention output
  bool operator==(const PlanFactsKey&) const = default;
};
[[nodiscard]] PlanFactsKey plan_facts_key(const Scenario& s, const Plan& plan);

// The local parameters of stage `st`: its blocks, plus the embedding (first stage) and output
// (last stage) layers.
[[nodiscard]] LocalParams stage_params(const Scenario& s, const Plan& plan, const PlanFacts& f,
                                       const PipelineStage& st);

}  // namespace shardsim::memory_detail
