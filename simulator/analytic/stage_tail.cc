#include "simulator/analytic/stage_tail.h"

#include <algorithm>
#include <utility>

#include "simulator/cost/contention.h"

namespace shardsim {
namespace {

// What stands behind each of a stage's m v gradient reductions (ZeRO-2 reduces every item's): the
// time to the item that produces the next one. `whole` items have a whole micro-batch (item)
// behind them, `paced` the pace of the closing backwards (the backward, or the wait for the next
// one from the later stages), `tight` only the next weight-gradient pass; the last one has only
// its own. whole + paced + tight + 1 = m v.
//  - GPipe, 1F1B and interleaved end in a run of backward items without forwards: GPipe all m,
//    1F1B its warm-up count min(p - k, m), interleaved its warm-up count of chunk items
//    2(p - k - 1) + (v - 1) p + 1 (Megatron's schedule; there each item reduces its chunk's share
//    and hides behind a chunk's backward: -18 % against the DES on GPT-3 at vpp 3 and 32
//    micro-batches when every reduction had a whole micro-batch behind it, -6.5 % now); all but
//    the last are paced.
//  - ZB-H1 (plan/schedule.h's program: W = min(p - k - 1, m) warm-up forwards, then F B W
//    triples whose weight pass lags k micro-batches behind, the last k run after the last
//    backward): a weight pass follows each backward B(j), j >= k. Counted by that backward, it
//    has a whole micro-batch behind it while j + 1 < m - W (a forward comes next), else the
//    paced backward; the one after B(m - 1) and the min(k, m) deferred ones have only a weight
//    pass behind them. With m >= p: m - p whole, p - k - 1 paced, k tight. (Until 2026-11-27 the
//    zero-bubble schedules were taken as steady to the end: ZeRO-2 under ZB-H1 came out up to 13 %
//    faster than the DES.)
//  - ZB-H2 (greedy in the DES): after its last forward the stage holds min(2p - 1, m)
//    micro-batches whose weight pass is due (the hold cap); their W passes fill the gaps between
//    its last backwards (at most its in-flight limit 2(p - k) - 1), the others run back to back.
//    A gap holds a weight pass only where the backwards arrive more than a backward apart
//    (`paced_share`, from the later stages' pace: none on the last stage, none on a stage
//    slower than the later ones, whose backwards queue; found by review: -8.8 and -14.3 %
//    against the DES on GPT-3 cut 24/24/24/48 and 48/24/24/24 when every gap held one). An
//    approximation of an order only the simulation knows: on the 55 ZeRO-2 plans among 197
//    random ZB-H2 plans of the shipped examples, -18.1..+12.4 % against the DES before (steady
//    to the end), -7.4..+8.7 % with it and the stage spans.
struct ReductionCovers {
  double whole = 0, paced = 0, tight = 0;
};

ReductionCovers reduction_covers(const Plan& plan, int stage, double paced_share) {
  const ScheduleTraits& facts = plan.schedule_facts();
  const double m = double(plan.micro_batches), p = plan.pp, k = stage;
  const auto closing = [&](double run) { return ReductionCovers{m - run, run - 1, 0}; };
  if (facts.forwards_first) return closing(m);
  if (is_one_f_one_b(facts)) return closing(std::min(p - k, m));
  if (facts.virtual_stages)  // chunk items: Megatron's interleaved warm-up count plus one
    return {m * plan.vpp - std::min(2 * (p - k - 1) + (plan.vpp - 1) * p + 1, m * plan.vpp),
            std::min(2 * (p - k - 1) + (plan.vpp - 1) * p + 1, m * plan.vpp) - 1, 0};
  if (facts.greedy) {
    const double held = std::min(2 * p - 1, m);
    const double paced = paced_share * std::min(std::min(2 * (p - k) - 1, m), held - 1);
    return {m - held, paced, held - 1 - paced};
  }
  const double warmup = std::min(p - k - 1, m);
  ReductionCovers r;
  r.whole = std::max(0.0, m - warmup - 1 - k);
  r.paced = std::max(0.0, m - 1 - std::max(k, m - warmup - 1));
  r.tight = m - 1 - r.whole - r.paced;  // min(k, m - 1): W(m - 1) and the deferred but the last
  return r;
}

// Data-parallel time not hidden behind compute:
//  - gradient buckets overlap the backward pass they follow, all but the last bucket (once per
//    step; ZeRO-2 every micro-batch, its gradients being sharded, each hidden behind the next);
//  - the ZeRO-1/2 parameter all-gather hides behind the next step's first forward when
//    overlapped;
//  - what overlaps compute slows it (contention.h).
double exposed_dp(const Scenario& s, const Plan& plan, const StepCosts& c, int stage,
                  double backward, double micro_batch, const ReductionCovers& covers, double pace) {
  const StageCost& sc = c.stages[std::size_t(stage)];
  const double m = double(plan.micro_batches);
  const bool every = s.strategy.zero_facts().reduces_every_microbatch;
  double total = 0, last = 0, once = 0;  // once: ZeRO-2's once-per-step buckets, apart
  for (const auto& b : sc.buckets) {
    if (every && b.once_per_step) {
      once += b.seconds;
      continue;
    }
    total += b.seconds;
    last = b.seconds;
  }
  // ZeRO-2 reduces every micro-batch: overlapped, the reductions queue on the communication
  // stream from the first micro-batch's backward on. Each runs behind the time to the item that
  // produces the next (reduction_covers: a whole micro-batch, the paced closing backward `pace`,
  // or a weight pass alone; interleaved counts chunk items, each reducing and covering a v-th)
  // and only what exceeds that carries over; the last has only its own backward, like ZeRO-1's
  // one reduction. So what shows is (total - backward) + whole max(0, total - micro_batch) +
  // paced max(0, total - pace) + tight max(0, total - backward), at least the last bucket; at
  // m = 1 it is ZeRO-1's. (Until 2026-11-27 every reduction, the last included, was hidden
  // behind a whole micro-batch: found by review, ZeRO-2 at m = 1 came out 21 % faster than ZeRO-1
  // and the DES on a communication-bound plan; and a 1F1B stage heavy enough to run its last
  // backwards back to back hid them as well, -16 % against the DES once the stage paths stopped
  // adding every other stage's whole fill/drain.) Without overlap the stage waits for all m of
  // them.
  const double slow = c.overlap_slowdown;
  double exposed = once;  // after the last micro-batch's reductions, nothing behind it
  if (every) {
    // interleaved: each chunk's item reduces its chunk's share, a v-th of each
    const double v = plan.schedule_facts().virtual_stages ? plan.vpp : 1;
    const double r = total / v, item = micro_batch / v, bwd = backward / v, paced = pace / v;
    const auto hidden = [&](double n, double cover) {
      return std::pair{n * std::max(0.0, r - cover), n * contention_seconds(cover, r, slow)};
    };
    const auto [whole_x, whole_c] = hidden(covers.whole, item);
    const auto [paced_x, paced_c] = hidden(covers.paced, paced);
    const auto [tight_x, tight_c] = hidden(covers.tight, bwd);
    // without overlap the backward items hold all but the last micro-batch's
    // (StageWork::sync_reduce), which follows here, beside the other stages' drain; the
    // zero-bubble schedules' weight items, off the chain, hold none
    const double held = plan.schedule_facts().split_weight_grad ? 0.0 : m - 1;
    exposed += s.strategy.overlap_grad_reduce
                   ? std::max(last, r - bwd + whole_x + paced_x + tight_x) + whole_c + paced_c +
                         tight_c + contention_seconds(bwd, r - last, slow)
                   : (m - held) * total;
  } else {
    exposed += s.strategy.overlap_grad_reduce ? std::max(last, total - backward) +
                                                    contention_seconds(backward, total - last, slow)
                                              : total;
  }
  exposed += s.strategy.overlap_param_gather
                 ? std::max(0.0, sc.param_gather_seconds - sc.forward_seconds) +
                       contention_seconds(sc.forward_seconds, sc.param_gather_seconds, slow)
                 : sc.param_gather_seconds;
  return exposed;
}

// The tail after each stage's last backward: its exposed data-parallel time, optimizer step and
// offload copies. Under GPipe, 1F1B and interleaved 1F1B the last micro-batch's backward passes
// run from the last stage to the first, so stage k finishes its last backward before stage 0 by
// the backward of that micro-batch (of its last chunk, a v-th of it, interleaved) on stages
// 0..k-1 and a transfer at each boundary: its tail overlaps their drain, and the step ends at
// the latest of (stage end + its tail), as the DES finds it. (Until 2026-11-27 the bottleneck
// stage's tail was added after the whole drain: found by review, +8 % against the DES on a
// two-stage plan whose last stage carried the larger optimizer step.) ZB-H1's program ends
// stage k with min(k + 1, m) weight passes after its last backward, so from the last stage's
// last backward stage i ends at its drain sum_{i <= j < p - 1} (backward + transfer) plus those
// passes, and leads the latest stage by the difference. ZB-H2's step is the longest stage span
// (zb_h2_span), so a stage leads by how much shorter its span is. (Until 2026-11-27 every
// zero-bubble stage's tail followed the end.) The stage whose tail shows is the one the
// breakdown's dp_comm, optimizer and offload
// describe; what its lead hides comes off the data-parallel time first, then the optimizer, then
// the offload.
}  // namespace

StageTail stage_tail(const Scenario& s, const Plan& plan, const StepCosts& c,
                     const std::vector<StageWork>& work, const std::vector<double>& spans) {
  const bool zb = plan.schedule_facts().split_weight_grad;
  struct Tail {
    double dp = 0, optimizer = 0, offload = 0, lead = 0;
    double shown() const { return dp + optimizer + offload - lead; }
  };
  Tail best;
  bool first = true;
  // how long before the last stage to finish each stage finishes (ZB-H2: 0)
  std::vector<double> leads(work.size(), 0.0);
  if (!zb) {
    for (std::size_t k = 1; k < work.size(); ++k) {
      const StageWork& o = work[k - 1];
      leads[k] = leads[k - 1] +
                 (o.b.total() + o.w.total() - chain_trail(plan, o) - o.sync_reduce) /
                     std::max(1, plan.vpp) +
                 c.p2p_seconds;
    }
  } else if (is_zb_h1(plan.schedule_facts())) {
    const double m = double(plan.micro_batches);
    std::vector<double> end(work.size(), 0.0);
    double drain = 0;
    for (std::size_t k = work.size(); k-- > 0;) {
      if (k + 1 < work.size()) drain += work[k].b.total() - work[k].zero3_trail + c.p2p_seconds;
      end[k] = drain + std::min(double(k) + 1, m) * work[k].w.total();
    }
    const double latest = *std::ranges::max_element(end);
    for (std::size_t k = 0; k < work.size(); ++k) leads[k] = latest - end[k];
  } else if (!spans.empty()) {  // ZB-H2: the step is the longest span plus its stage's tail
    const double longest = *std::ranges::max_element(spans);
    for (std::size_t k = 0; k < work.size(); ++k) leads[k] = longest - spans[k];
  }
  // 1F1B's cooldown: stage k's last backwards arrive no faster than the last stage's cycle (it
  // alternates forward and backward to the end) or any stage between's backward.
  std::vector<double> later(work.size() + 1, 0.0);
  for (std::size_t k = work.size(); k-- > 0;) {
    const StageWork& o = work[k];
    later[k] = std::max(later[k + 1],
                        (k + 1 == work.size() ? o.f.total() : 0.0) + o.b.total() + o.w.total());
  }
  for (const auto& st : plan.stages) {
    const StageWork& sw = work[std::size_t(st.index)];
    const StageCost& sc = c.stages[std::size_t(st.index)];
    Tail t;
    // gradients appear during the weight passes (ZB: only those)
    const double backward = zb ? sw.w.total() : sw.b.total() + sw.w.total();
    const double micro_batch = sw.f.total() + sw.b.total() + sw.w.total();
    // the closing backwards' pace: B (+ W) each, or the later stages' if slower
    const double closing = sw.b.total() + sw.w.total();
    const double cover =
        plan.schedule_facts().forwards_first || plan.schedule_facts().virtual_stages
            ? closing
            : std::min(micro_batch, std::max(closing, later[std::size_t(st.index) + 1]));
    // ZB-H2: a weight pass fits between two backwards only where they arrive more than a
    // backward apart (none on the last stage, none on a stage slower than the later ones)
    const double w = sw.w.total(), gap = later[std::size_t(st.index) + 1] - sw.b.total();
    const double share = w > 0 ? std::clamp(gap / w, 0.0, 1.0) : 0.0;
    t.dp = exposed_dp(s, plan, c, st.index, backward, micro_batch,
                      reduction_covers(plan, st.index, share), cover);
    t.optimizer = sc.optimizer_seconds + sc.host_optimizer_seconds;
    t.offload = sc.offload_d2h_seconds + sc.offload_h2d_seconds;
    t.lead = leads[std::size_t(st.index)];
    if (first || t.shown() > best.shown()) best = t;
    first = false;
  }
  double hidden = std::max(0.0, best.lead);
  StageTail shown;
  for (auto [seconds, out] : {std::pair{best.dp, &shown.dp},
                              {best.optimizer, &shown.optimizer},
                              {best.offload, &shown.offload}}) {
    const double cut = std::min(hidden, seconds);
    hidden -= cut;
    *out = seconds - cut;
  }
  return shown;
}

}  // namespace shardsim
