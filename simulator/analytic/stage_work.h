// One micro-batch of a pipeline stage's work as the analytic model (analytic.cc) sums it from the
// per-op costs: each pass's time, FLOPs and host dispatch time, with ZeRO-3's exposed traffic and
// the host bound folded in. Also the schedule predicates the analytic files share.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/cost/step_costs.h"
#include "simulator/cost/time_split.h"
#include "simulator/plan/plan.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

// One micro-batch of every chunk of stage i: forward, backward-input, backward-weight, and FLOPs.
struct StageWork {
  TimeSplit f, b, w;
  double model_flops = 0, hardware_flops = 0;
  double host_f = 0, host_b = 0, host_w = 0;  // the framework's dispatch time of each pass
  // ZeRO-3: the part of b that is reduce-scatters still running after the backward items' last
  // compute. It delays the stage's own next item, not the transfer to the next stage.
  double zero3_trail = 0;
  // ZeRO-2 without overlapped reduction under GPipe, 1F1B and interleaved 1F1B: the gradient
  // reduce-scatter every backward item waits for before it ends (and before its transfer), part
  // of b as data-parallel time. The last micro-batch's item ends at its compute and its reduction
  // runs after it, beside the other stages' drain (des/step_program.cc start_item).
  double sync_reduce = 0;
  // Parameter offload: how much the lead credit (stage_work.cc add_zero3_exposure) lowered f and b,
  // each the average over the stage's items. Another stage's item on this stage's path waited
  // for its input, so the lead it was credited with has run (partly) by then: the paths take
  // the other stages' items without it (a lower bound, as their other terms).
  double credit_f = 0, credit_b = 0;
  // Interleaved 1F1B: the first and the last chunk's shares of the stage's forward and backward
  // compute (its units' work), which its items divide by (analytic.cc interleaved_path).
  double first_chunk_f = 1, first_chunk_b = 1, last_chunk_f = 1, last_chunk_b = 1;
};

// What of a stage's backward its neighbours do not wait for: ZeRO-3's trailing reduce-scatters,
// except under interleaving, where the stage's next chunk item, on the same drain path, waits.
[[nodiscard]] double chain_trail(const Plan& plan, const StageWork& sw);

// Parameter offload under a fixed program: how many of stage `stage`'s items that gather follow
// an item that reduce-scatters (non-ZB: a backward; ZB-H1: a weight pass), by kind (0: forward,
// 1: backward input), the item's chunk c and the previous item's chunk b: counts[(kind v + c) v
// + b]. Closed form of a walk over stage_program (plan/schedule.h); ZB-H2 (no program): zeros.
[[nodiscard]] std::vector<std::int64_t> offload_lead_counts(const Plan& plan, int stage, bool zb);

// Stage st's work over one micro-batch of every chunk (zero3: ZeRO-3's gathers and reduce-scatters
// as each item exposes them).
[[nodiscard]] StageWork stage_work(const Scenario& s, const Plan& plan, const StepCosts& c,
                                   const PipelineStage& st, bool zero3);

// The FLOPs of stage_work alone, summed in the same order (throughput needs no times).
struct StageFlops {
  double model = 0, hardware = 0;
};

[[nodiscard]] StageFlops stage_flops(const StepCosts& c, const PipelineStage& st);

// Stages a and b sum the same costs in the same order (the same embedding/output role, chunk
// sizes and, position by position, the same layer cost), so their StageWork is bit-identical:
// middle stages usually repeat one shape.
[[nodiscard]] bool same_work(const StepCosts& c, const PipelineStage& a, const PipelineStage& b);

// 1F1B: one forward and one whole backward alternate (tight steady state), one chunk per stage.
[[nodiscard]] bool is_one_f_one_b(const ScheduleTraits& facts);

// ZB-H1: weight passes split off in a fixed program (not ZB-H2's greedy order).
[[nodiscard]] bool is_zb_h1(const ScheduleTraits& facts);

}  // namespace shardsim
