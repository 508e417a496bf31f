// Pipeline schedules as programs: the order in which one stage runs its forward (F),
// backward-input (B) and backward-weight (W) work. The event simulation executes these programs
// and the memory model walks them for each stage's peak of live activations, so both always
// agree on a schedule.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "simulator/model/ops.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

struct ProgramItem {
  Pass pass = Pass::kForward;
  std::int64_t k = 0;  // position in the stage's forward (F) or backward (B, W) order
};

// The forwards stage i's fixed program (stage_program) runs before its first backward, of `total`
// = m v forward items: GPipe all of them, interleaved 2(p - i - 1) + (v - 1) p, the others
// p - i - 1 (at most `total`).
[[nodiscard]] std::int64_t warmup_forwards(Schedule s, int i, int p, int v, std::int64_t total);

// Stage i's program for GPipe, 1F1B, interleaved 1F1B (Megatron-LM's order: warm-up
// 2(p-i-1) + (v-1)p forwards, then one forward and one backward at a time, then the remaining
// backwards) and ZB-H1 (Qi et al. §2.1: the 1F1B order, stage i delaying its first W by i steps,
// then one W after each B, the rest at the tail). Non-ZB programs fold W into B. ZB-H2 is not a
// fixed program (the event simulation schedules it greedily): empty.
// `max_items` bounds the program's length (the memory model needs only its beginning).
[[nodiscard]] std::vector<ProgramItem> stage_program(Schedule schedule, int stage, int pp, int vpp,
                                                     std::int64_t micro_batches,
                                                     std::size_t max_items = SIZE_MAX);

// The k-th entry of stage i's forward (backward) order -> (virtual stage, micro-batch). With
// interleaving, groups of p micro-batches go through chunk 0, 1, ... (backward: chunks reversed).
[[nodiscard]] std::pair<int, std::int64_t> order_position(int stage, std::int64_t k, bool backward,
                                                          int pp, int vpp);

// Live chunk micro-batches of each of stage i's chunks when the stage's live activation bytes
// peak (a chunk micro-batch is live from its F until its B, or its W under ZB-H1), walking the
// program with `chunk_bytes[c]` per live micro-batch of chunk c. ZB-H2 holds up to
// min(2p - 1, m) micro-batches on every stage (the event simulation's cap).
[[nodiscard]] std::vector<std::int64_t> peak_live_per_chunk(Schedule schedule, int stage, int pp,
                                                            int vpp, std::int64_t micro_batches,
                                                            const std::vector<double>& chunk_bytes);

// Micro-batches whose activations stage `stage` holds at its peak, counted in whole-stage units
// (a chunk micro-batch of an interleaved schedule counts 1/vpp):
//   GPipe m; 1F1B min(p - i, m); ZB-H1 min(p, m) on every stage (Qi et al. §2.1: W passes are
//   delayed so that all stages hold p, the first no more than 1F1B); ZB-H2 min(2p - 1, m)
//   (about twice 1F1B); interleaved min(2(p - i - 1) + (v - 1)p + 1, m*v) / v (Megatron's
//   warm-up count; on the first stage p(1 + (p-1)/(p v)), Korthikanti et al.'s factor).
// The memory model walks the schedule programs (plan/schedule.h), which give these counts.
[[nodiscard]] double in_flight_microbatches(Schedule schedule, int stage, int pp, int vpp,
                                            std::int64_t m);
// The same in chunk micro-batches (forwards whose backward has not run), at most m * vpp; the
// event simulation's in-flight limit.
[[nodiscard]] std::int64_t in_flight_chunks(Schedule schedule, int stage, int pp, int vpp,
                                            std::int64_t m);

// ZB-H2's greedy rule (the event simulation): stage i runs at most 2(p - i) - 1 forwards ahead of
// their input-gradient passes, capped at the m * v it has.
[[nodiscard]] std::int64_t greedy_forward_limit(int stage, int pp, int vpp, std::int64_t m);

}  // namespace shardsim
