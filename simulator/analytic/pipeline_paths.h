// Closed forms of the analytic model that are pure arithmetic over per-stage or per-unit times:
// a ZeRO-3 item's two streams and a 1F1B or ZB-H1 stage's path. analytic.cc combines them with
// the costs.
#pragma once

#include <cstddef>
#include <vector>

namespace shardsim {

// One unit of a ZeRO-3 item (a block, or the embedding or output layer) in one pass: its
// parameter gather, its gradient reduce-scatter, and its compute.
struct Zero3Unit {
  double gather = 0, reduce = 0, compute = 0;
  double h2d = 0;  // parameter offload: the host-to-device copy its gather waits for
};

struct Zero3Item {
  double exposed = 0;  // what the item adds to its compute
  double trail = 0;    // of which reduce-scatters after its last compute
  // of which the DES charges to host-to-device copies (parameter offload): the idle time of the
  // compute, taken by the tasks running in it in the order of their starts clipped to its start,
  // a collective before a copy on a tie (des/step_sim.cc charge_side_streams)
  double offload = 0;
};

// The time one ZeRO-3 item (a chunk's pass over one micro-batch) adds to its compute, taken in
// isolation with idle streams, as the DES issues its tasks (des/step_program.cc): on the one
// data-parallel stream, in order, unit k's gather waits for unit k - depth - 1's compute (FSDP's
// limit on units gathered at once) and, under parameter offload, for its host-to-device copy
// (the copies run back to back on the host stream from the item's start); in a pass that
// reduces, unit k's reduce-scatter follows its compute, queued behind the gather of unit
// k + depth; unit k computes after its gather and after unit k - 1. The item's stream is done
// after its compute by the trailing reduce-scatters, which the stage's next item's first gather
// waits for. With depth 0 no gather overlaps compute. A two-machine flow shop in a fixed order,
// so one pass over the units gives it.
// While a collective of the stream runs, compute progresses at 1 / (1 + slowdown) (contention.h,
// instant by instant as the DES applies it), and what that adds is part of `exposed`: a unit
// waiting for its gather is not slowed by it. (Until 2026-11-29 contention was charged on the
// item's whole traffic as if it overlapped compute from the start: +5 to +13 % against the DES on
// offloaded-parameter plans, whose copy-bound gathers run while compute waits.)
// `lead`: the stream is still busy for that long from the item's start with the stage's previous
// item's trailing reduce-scatters; the host-to-device copies start at once beside them, as the
// DES issues an item's tasks when the stage picks it. The exposure then includes the lead.
// `serial`: each unit's compute waits for the previous unit's reduce-scatter, and the item ends
// after its last (parallel.overlap_grad_reduce false: DeepSpeed's stage 3 with overlap_comm false
// runs its reduce-scatters on the default stream, deepspeed/runtime/zero/stage3.py
// reduce_and_partition_stream; they still share the data-parallel stream's links with the
// gathers): nothing trails.
[[nodiscard]] Zero3Item zero3_item_exposed(const std::vector<Zero3Unit>& units, std::size_t depth,
                                           bool gathers, bool reduces, double slowdown = 0,
                                           double lead = 0, bool serial = false);

// 1F1B with unequal stages (the bottleneck plus every other stage's whole fill/drain, as
// fill_drain gives it, overstates a plan whose heavy stage's warm-up hides the others: +24 %
// against the DES on 4 stages of 12, 4, 4, 4 layers at 4 micro-batches, found by review
// 2026-11-27). Stage k's own path is a lower bound of the step, and the step is the largest:
//  - the stages before it fill and drain around it: U = sum_{i<k} (f_i + b_i) + 2k t;
//  - it runs its m micro-batches, m (f + b);
//  - its backward of micro-batch j starts no earlier than the round trip through the later
//    stages after its forward of j: D = sum_{i>k} (f_i + b_i) + 2(p - 1 - k) t. Between the two
//    its program puts other work: a = min(p - k, m) forwards precede its first backward, so that
//    one waits max(0, A - a f), A its arrival: a later stage j runs its first backward only
//    after its forward of micro-batch x_j = min(p - j - 1, m - 1), delivered through stages
//    k..j as a flow line (sum_{k<=l<=j} f_l + x_j max_{k<=i<=j} f_i + (j - k) t), then the
//    backward chain back; A is the largest over j, f + D at j = p - 1 (until 2026-11-27 only
//    that one: -8.6 % against the DES on a heavy first stage with m < p, found by review). The
//    last waits max(0, D - (a - 1) b) once the forwards have run out; in the steady state, round
//    trips a micro-batches apart each wait max(0, D - (a - 1)(f + b)), floor((m - 1) / a) - 1
//    of them between the first and the last. With m <= a every forward runs first and the
//    larger of the first and the last wait shows.
// Equal stages give (m + p - 1)(f + b) at k = 0 (Narayanan et al. §2.2), plus 4(p - 1) t for the
// fill, drain and first and last round trips and 2(p - 1) t per further p micro-batches (the
// steady state's round trip; before this the closed form took 2(p - 1)(1 + m / p) t). A first
// stage whose warm-up covers the later stages' round trip hides them: m (f_0 + b_0). Checked
// against an event simulation of the same program (stage k waits for stage k - 1's forward and
// stage k + 1's backward, plus t): exact on equal stages without transfers, within -8 % with a
// transfer as long as a forward, within -7 % with a first stage 0.3-3x and a last 0.5-4x the
// middle ones (p 2-16, m 1-33), down to -13 % with arbitrary ratios; never above the events,
// every term being a lower bound.
//
// f, b: each stage's forward and backward item; chain: its backward as its neighbours wait for it
// (b less ZeRO-3's trailing reduce-scatters, analytic.cc StageWork::zero3_trail); last: the
// last micro-batch's backward up to its last compute, which the drain follows (b less those
// reduce-scatters and ZeRO-2's synchronous reduction, StageWork::sync_reduce, which that
// micro-batch does not wait for; the stage tail takes it); own: what of it still holds the
// stage after that compute (ZeRO-3's trailing reduce-scatters); the drain through the earlier
// stages ends with the latest of their own, each after its last compute.
[[nodiscard]] double one_f_one_b_path(const std::vector<double>& f, const std::vector<double>& b,
                                      const std::vector<double>& chain,
                                      const std::vector<double>& last,
                                      const std::vector<double>& own, std::size_t k, double m,
                                      double t);

// ZB-H1 with unequal stages, the same bound over its fixed program (plan/schedule.h: a - 1
// warm-up forwards, a = min(p - k, m), then F B W triples, the weight passes of the first k
// micro-batches deferred to the end). Stage k's path: U; its m (f + b + w); the waits for the
// later stages' round trip D (their forward and backward-input items; weight passes are off the
// chain), with the items between a forward and its backward now holding weight passes: the
// first max(0, A - a f) as above, the last max(0, D - (a - 1)(b + w)), the steady ones
// max(0, D - (a - 1)(f + b + w)); with m <= a the larger of the first's and the last's (m - 1
// backwards and the max(0, m - 1 - k) weight passes between them). Its program ends with
// n = min(k + 1, m) weight passes after its last backward, while each earlier stage i drains
// (its backward-input passes from k - 1 down to i, a transfer each) and then runs its own
// min(i + 1, m): the path ends at the latest of those. Equal stages give the bubble
// (p - 1)(b + max(0, f - w)) at k = 0, Qi et al.'s (p - 1) max(f, f + b - w) wherever w <= min(f,
// b). f, b, w: each stage's forward, backward-input and backward-weight item; chain: b as the
// neighbours wait for it (less ZeRO-3's trailing reduce-scatters).
[[nodiscard]] double zb_h1_path(const std::vector<double>& f, const std::vector<double>& b,
                                const std::vector<double>& w, const std::vector<double>& chain,
                                std::size_t k, double m, double t);

// ZB-H2 (the DES's greedy order: a ready backward, else a forward within 2(p - k) - 1 in flight,
// else a deferred weight pass) overlaps consecutive steps (Qi et al.'s optimizer
// post-validation), so its step is each stage's span from its first forward, not the pipeline's
// fill and drain. Stage k's span is the largest of:
//  - its m (f + b + w) and the waits for the later stages' round trip D (as zb_h1_path's, from
//    its first forward) with a = min(2(p - k) - 1, m) forwards ahead, the held weight passes
//    filling the gaps of the closing backwards (the last wait max(0, D - (a - 1)(b + w)));
//  - its work plus Qi et al.'s bubble once m >= 2p - 1: each other stage's max(0, f + b - 2w),
//    weighted by that stage's work per micro-batch over this one's, at most 1 (the equal-stage
//    identity; unweighted it over-stated a heavy stage: +6.4 % against the DES on GPT-3 cut
//    7/23/23/43 with full recomputation at 7 micro-batches, found by review; weighted +3.0 %, and
//    of 2 x 197 random ZB-H2 plans 55 moved closer to the DES, 8 further by under a point; the
//    weight is a fit to the DES, not a derivation);
//  - a later stage j pacing it: the forwards from k to j, j's m (f_j + b_j), the backward chain
//    back to k and its own last weight pass.
// Equal stages with f = b = w give m (f + b + w): Qi et al.'s zero bubble.
[[nodiscard]] double zb_h2_span(const std::vector<double>& f, const std::vector<double>& b,
                                const std::vector<double>& w, const std::vector<double>& chain,
                                std::size_t k, double m, double t);

}  // namespace shardsim
