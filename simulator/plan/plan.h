// The execution plan of a scenario: parallel degrees, micro-batches, and which layers each
// pipeline stage (and each of its virtual chunks) holds. Pure function of the scenario.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/model/ops.h"
#include "simulator/plan/schedule.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

struct StageChunk {
  int first_layer = 0;  // 0-based index of the chunk's first transformer block
  int layers = 0;
};

struct PipelineStage {
  int index = 0;
  std::vector<StageChunk> chunks;  // vpp chunks: chunk c is virtual stage c*pp + index
  bool has_embedding = false;      // first stage
  bool has_output = false;         // last stage
  [[nodiscard]] int layers() const;
};

struct Plan {
  int tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, dp = 1;
  std::int64_t gpus = 1;
  std::int64_t micro_batches = 1;  // per data-parallel rank per optimizer step (m)
  Schedule schedule = Schedule::k1F1B;
  [[nodiscard]] const ScheduleTraits& schedule_facts() const { return schedule_traits(schedule); }
  std::vector<PipelineStage> stages;
  int gpus_per_node = 1;
  // Distance in global ranks between neighbours of each group (from parallel.rank_order).
  long long stride_tp = 1, stride_cp = 1, stride_dp = 1, stride_pp = 1;
  // ZeRO shards dense states over DP x CP (Megatron's data-parallel group with context parallel)
  // and expert states over the expert-data-parallel group DP x CP / EP.
  [[nodiscard]] int dense_shard_degree() const { return dp * cp; }
  [[nodiscard]] int expert_shard_degree() const { return dp * cp / ep; }
};

// Layers per virtual stage, in virtual-stage order. Even when `layers` divides; otherwise the
// middle stages get ceil(layers / n) and the first and last share the rest (Megatron-LM's
// uneven first/last stages) when that leaves each of them between 1 and ceil(layers / n) layers,
// else a balanced split (no stage more than one layer above another). `first`/`last` >= 0 fix
// those two counts explicitly.
// REQUIRES: layers >= n >= 1 (validated by the scenario checks).
[[nodiscard]] std::vector<int> split_layers(int layers, int n, int first = -1, int last = -1);

[[nodiscard]] Plan make_plan(const Scenario& s);

// The token geometry of one micro-batch on one context-parallel rank that the op lists are built
// for (model/ops.h OpShape), as the cost model and the memory model both take it: the sequence
// split over CP, the sliding window fused attention skips tiles by (attention_window), and the
// heads an all-to-all rank's attention core takes (cp_comm a2a).
[[nodiscard]] OpShape op_shape(const Scenario& s, const Plan& plan);

}  // namespace shardsim
