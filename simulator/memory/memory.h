// Per-rank memory of a training step: one entry per pipeline stage (ranks of one stage are
// identical across TP, CP and DP), each split into named terms, plus host memory under offload.
// Pure function of (scenario, plan). All values in bytes.
#pragma once

#include <string>
#include <vector>

#include "simulator/core/infeasible.h"
#include "simulator/core/memo.h"
#include "simulator/memory/plan_facts.h"
#include "simulator/model/params.h"
#include "simulator/plan/plan.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

enum class MemoryCategory { kParams, kGrads, kOptimizer, kActivations, kOverhead };

struct MemoryTerm {
  std::string name;  // e.g. "activations.layers", "overhead.nccl"
  MemoryCategory category = MemoryCategory::kOverhead;
  double bytes = 0;
  std::string note;  // how it was computed, with the numbers
};

struct RankMemory {
  int pp_stage = 0;
  int layers = 0;
  double local_params = 0;  // parameter elements this rank computes with (before ZeRO)
  double in_flight_microbatches = 0;
  double params_bytes = 0, grads_bytes = 0, optimizer_bytes = 0, activations_bytes = 0,
         overhead_bytes = 0, total_bytes = 0;
  double host_bytes = 0;  // this rank's offloaded states in host memory
  std::vector<MemoryTerm> terms;
};

struct MemoryEstimate {
  ParamTotals parameters;
  double capacity_bytes = 0;  // one GPU's memory
  double peak_bytes = 0;      // the largest rank total
  int peak_stage = 0;
  bool fits = false;
  std::string reason;              // why it does not fit (empty when it fits)
  double host_bytes_per_node = 0;  // offloaded states of one node's GPUs
  std::vector<RankMemory> ranks;   // one per pipeline stage
  // "memory" when a stage does not fit; "zero3_prefetch" when ZeRO-3's gather buffers do not fit
  // beside the sharded states even with no activations.
  std::vector<Infeasibility> infeasible;
};

// How much of the estimate to build. kFull: everything, each rank's terms with their notes
// (reports). kNumbers: the same numbers (every RankMemory total, peak, fits, reason, infeasible,
// host bytes) without RankMemory::terms (left empty) and without `parameters` (left zero: a
// property of the model, count_parameters once), for searches that evaluate many strategies.
enum class MemoryDetail { kNumbers, kFull };

// A caller-held memo of what every stage of a plan shares (each block kind's parameters and
// saved activations, the embedding and output layers'), for one model (core/memo.h).
using PlanFactsCache = Memo<memory_detail::PlanFactsKey, memory_detail::PlanFacts, ModelConfig>;

// `cache`: optional; the estimate is the same with or without it.
[[nodiscard]] MemoryEstimate estimate_memory(const Scenario& s, const Plan& plan,
                                             MemoryDetail detail = MemoryDetail::kFull,
                                             PlanFactsCache* cache = nullptr);

[[nodiscard]] std::string category_name(MemoryCategory c);

// The local parameters (one TP/EP rank, before ZeRO sharding) of the largest pipeline stage of
// `plan`: its blocks plus the embedding (first stage) or output layer (last stage), with the
// vocabulary padded as Megatron pads it.
[[nodiscard]] double largest_stage_local_parameters(const Scenario& s, const Plan& plan);

}  // namespace shardsim
