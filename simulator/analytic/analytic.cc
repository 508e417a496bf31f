#include "simulator/analytic/analytic.h"

#include <algorithm>
#include <vector>

#include "simulator/analytic/pipeline_paths.h"
#include "simulator/cost/contention.h"
#include "simulator/cost/host_dispatch.h"

namespace shardsim {
namespace {

// One micro-batch of every chunk of stage i: forward, backward-input, backward-weight, and FLOPs.
struct StageWork {
  TimeSplit f, b, w;
  double model_flops = 0, hardware_flops = 0;
  double host_f = 0, host_b = 0, host_w = 0;  // the framework's dispatch time of each pass
  // ZeRO-3: the part of b that is reduce-scatters still running after the backward items' last
  // compute. It delays the stage's own next item, not the transfer to the next stage.
  double zero3_trail = 0;
};

// What of a stage's backward its neighbours do not wait for: ZeRO-3's trailing reduce-scatters,
// except under interleaving, where the stage's next chunk item, on the same drain path, waits.
double chain_trail(const Plan& plan, const StageWork& sw) {
  return plan.schedule_facts().virtual_stages ? 0 : sw.zero3_trail;
}

// The host bound (cost/host_dispatch.h): each pass takes at least the time the host needs to issue
// it; what exceeds the GPU's time is the GPU waiting for the host. Non-ZB schedules run the weight
// gradients inside the backward item, so b and w are one item there.
void add_host_bound(bool zb, double sync, StageWork& sw) {
  sw.f.add(TimeCategory::kHostDispatch, host_exposed(sw.host_f, sw.f.total(), sync));
  if (zb) {
    sw.b.add(TimeCategory::kHostDispatch, host_exposed(sw.host_b, sw.b.total(), sync));
    sw.w.add(TimeCategory::kHostDispatch, host_exposed(sw.host_w, sw.w.total(), sync));
  } else {
    sw.b.add(TimeCategory::kHostDispatch,
             host_exposed(sw.host_b + sw.host_w, sw.b.total() + sw.w.total(), sync));
  }
}

// ZeRO-3: gathers (forward: each unit's parameters; backward: again, plus each unit's gradient
// reduce-scatter) share one stream. Each item exposes what zero3_item_exposed gives: its first
// gather when the compute is the bottleneck, the stream's excess over the compute when the
// traffic is, and the reduce-scatters still running after its last compute (kept apart as
// StageWork::zero3_trail: they hold the stage's next item, not its neighbours). Under the
// zero-bubble schedules the backward-input item gathers and the weight item reduce-scatters. The
// traffic that overlaps compute slows it (contention.h), charged to the data-parallel
// communication too. (Until 2026-11-27 an item exposed its first gather on top of the traffic
// its compute could not cover, every chunk's first gather was taken to be the stage's first
// unit's, and parameter offload's copies were left out: +25 and +32 % against the DES on GPT-3
// with ZeRO-3 at vpp 3 and 6, -60 to -82 % with offloaded parameters; found by review.)
void add_zero3_exposure(const StepCosts& c, const PipelineStage& st, int prefetch, bool zb,
                        StageWork& sw) {
  const std::size_t depth = std::size_t(std::max(0, prefetch));
  double gather = 0, reduce = 0, exposed_f = 0, exposed_b = 0, exposed_w = 0, trail_w = 0;
  std::vector<const LayerCost*> chunk;
  std::vector<Zero3Unit> units;
  // one item over the chunk's units in their current order, each computing compute_of(its work)
  auto pass = [&](auto compute_of, bool gathers, bool reduces) {
    units.clear();
    for (const LayerCost* lc : chunk)
      units.push_back({lc->zero3_gather_seconds, lc->zero3_reduce_seconds, compute_of(lc->work),
                       lc->zero3_h2d_seconds});
    return zero3_item_exposed(units, depth, gathers, reduces);
  };
  const auto fwd = [](const WorkCost& w) { return w.fwd.total(); };
  const auto input = [](const WorkCost& w) { return w.bwd_input.total(); };
  const auto weight = [](const WorkCost& w) { return w.bwd_weight.total(); };
  const auto backward = [](const WorkCost& w) {
    return w.bwd_input.total() + w.bwd_weight.total();
  };
  for (std::size_t ci = 0; ci < st.chunks.size(); ++ci) {
    chunk.clear();  // forward order, as des/step_program.cc item_units
    if (ci == 0 && st.has_embedding) chunk.push_back(&c.embedding);
    const StageChunk& ch = st.chunks[ci];
    for (int l = ch.first_layer; l < ch.first_layer + ch.layers; ++l) chunk.push_back(&c.layer(l));
    if (ci + 1 == st.chunks.size() && st.has_output) chunk.push_back(&c.output);
    for (const LayerCost* lc : chunk) {
      gather += lc->zero3_gather_seconds;
      reduce += lc->zero3_reduce_seconds;
    }
    exposed_f += pass(fwd, true, false).exposed;
    std::reverse(chunk.begin(), chunk.end());  // the backward passes run the units backwards
    if (zb) {
      exposed_b += pass(input, true, false).exposed;
      const Zero3Item item = pass(weight, false, true);
      exposed_w += item.exposed;
      trail_w += item.trail;  // after the last compute: no contention
    } else {
      const Zero3Item item = pass(backward, true, true);  // input and weight gradients
      exposed_b += item.exposed;
      sw.zero3_trail += item.trail;
    }
  }
  // What overlaps compute slows it. Without prefetch no gather overlaps compute; the zero-bubble
  // weight items' reduce-scatters still overlap the next unit's.
  const double s = depth > 0 ? c.overlap_slowdown : 0;
  const double f = sw.f.total(), b = sw.b.total(), w = sw.w.total();
  sw.f.add(TimeCategory::kDpComm, exposed_f + contention_seconds(f, gather, s));
  if (zb) {
    sw.b.add(TimeCategory::kDpComm, exposed_b + contention_seconds(b, gather, s));
    sw.w.add(TimeCategory::kDpComm,
             exposed_w + contention_seconds(w, reduce - trail_w, c.overlap_slowdown));
  } else {
    sw.b.add(TimeCategory::kDpComm, exposed_b + contention_seconds(b + w, gather + reduce, s));
  }
}

// Calls fn with one micro-batch's work of every unit of stage `st`, in one fixed order (the
// chunks' blocks, then the embedding, then the output layer), so sums over it are reproducible.
template <class Fn>
void for_each_unit_work(const StepCosts& c, const PipelineStage& st, Fn&& fn) {
  for (const auto& ch : st.chunks)
    for (int l = ch.first_layer; l < ch.first_layer + ch.layers; ++l) fn(c.layer(l).work);
  if (st.has_embedding) fn(c.embedding.work);
  if (st.has_output) fn(c.output.work);
}

StageWork stage_work(const Scenario& s, const Plan& plan, const StepCosts& c,
                     const PipelineStage& st, bool zero3) {
  StageWork sw;
  for_each_unit_work(c, st, [&sw](const WorkCost& wc) {
    sw.f += wc.fwd;
    sw.b += wc.bwd_input;
    sw.w += wc.bwd_weight;
    sw.model_flops += wc.model_flops;
    sw.hardware_flops += wc.hardware_flops;
    sw.host_f += wc.host_fwd;
    sw.host_b += wc.host_bwd_input;
    sw.host_w += wc.host_bwd_weight;
  });
  const bool zb = plan.schedule_facts().split_weight_grad;
  if (zero3) add_zero3_exposure(c, st, s.strategy.zero3_prefetch, zb, sw);
  add_host_bound(zb, s.framework.host_sync_fraction, sw);
  return sw;
}

// The FLOPs of stage_work alone, summed in the same order (throughput needs no times).
struct StageFlops {
  double model = 0, hardware = 0;
};

StageFlops stage_flops(const StepCosts& c, const PipelineStage& st) {
  StageFlops sf;
  for_each_unit_work(c, st, [&sf](const WorkCost& wc) {
    sf.model += wc.model_flops;
    sf.hardware += wc.hardware_flops;
  });
  return sf;
}

// Stages a and b sum the same costs in the same order (the same embedding/output role, chunk
// sizes and, position by position, the same layer cost), so their StageWork is bit-identical:
// middle stages usually repeat one shape.
bool same_work(const StepCosts& c, const PipelineStage& a, const PipelineStage& b) {
  if (a.has_embedding != b.has_embedding || a.has_output != b.has_output ||
      a.chunks.size() != b.chunks.size())
    return false;
  for (std::size_t i = 0; i < a.chunks.size(); ++i) {
    const StageChunk &x = a.chunks[i], &y = b.chunks[i];
    if (x.layers != y.layers) return false;
    for (int k = 0; k < x.layers; ++k)
      if (&c.layer(x.first_layer + k) != &c.layer(y.first_layer + k)) return false;
  }
  return true;
}

// Idle time stage i adds to the step while the pipeline fills and drains under GPipe and
// interleaved 1F1B, with f and b its forward and whole backward per micro-batch: its f + b
// (Narayanan et al. §2.2), under interleaving a v-th of it. (1F1B and the zero-bubble schedules
// take stage paths, pipeline_paths.h; until 2026-11-27 ZB-H1 added max(f, f + b - w) and ZB-H2
// max(0, f + b - 2w) per stage here, Qi et al.'s equal-stage bubbles, which over-stated unequal
// stages: up to +16 and +24 % against the DES.)
double fill_drain(double f, double b, int v) {
  return (f + b) / v;
}

// Pipeline transfers on the critical path of the schedules without stage paths (GPipe,
// interleaved): the fill and drain cross every boundary between (virtual) stages both ways. (The
// others count their transfers along their stage paths.)
double pipeline_transfers(Schedule s, int p, int v, double p2p) {
  const double hops = schedule_traits(s).virtual_stages ? double(p) * v - 1 : p - 1.0;
  return 2 * hops * p2p;
}

// 1F1B: one forward and one whole backward alternate (tight steady state), one chunk per stage.
bool is_one_f_one_b(const ScheduleTraits& facts) {
  return facts.tight_steady_state && !facts.split_weight_grad && !facts.virtual_stages;
}

// ZB-H1: weight passes split off in a fixed program (not ZB-H2's greedy order).
bool is_zb_h1(const ScheduleTraits& facts) {
  return facts.split_weight_grad && !facts.greedy;
}

struct PipelinePath {
  std::size_t stage = 0;
  double bubble = 0, transfers = 0;
  std::vector<double> lengths;  // every stage's path (ZB-H2: span), transfers included
};

// Each stage's forward, backward-input and backward-weight item (non-ZB schedules fold the weight
// pass into the backward), and its backward as its neighbours wait for it.
struct PassTimes {
  std::vector<double> f, b, w, chain;
};

PassTimes pass_times(const std::vector<StageWork>& work, bool zb) {
  PassTimes pt;
  for (const auto& sw : work) {
    pt.f.push_back(sw.f.total());
    pt.b.push_back(sw.b.total() + (zb ? 0 : sw.w.total()));
    pt.w.push_back(zb ? sw.w.total() : 0);
    pt.chain.push_back(pt.b.back() - sw.zero3_trail);
  }
  return pt;
}

// Stage k's path (pipeline_paths.h): 1F1B's, ZB-H1's, or ZB-H2's span.
double stage_path(const ScheduleTraits& facts, const PassTimes& pt, std::size_t k, double m,
                  double t) {
  if (!facts.split_weight_grad) return one_f_one_b_path(pt.f, pt.b, pt.chain, k, m, t);
  return facts.greedy ? zb_h2_span(pt.f, pt.b, pt.w, pt.chain, k, m, t)
                      : zb_h1_path(pt.f, pt.b, pt.w, pt.chain, k, m, t);
}

// The longest stage path of 1F1B, ZB-H1 or ZB-H2 (pipeline_paths.h).
PipelinePath stage_paths(const ScheduleTraits& facts, const std::vector<StageWork>& work, double m,
                         double t) {
  const PassTimes pt = pass_times(work, facts.split_weight_grad);
  PipelinePath best;
  double longest = -1;
  for (std::size_t k = 0; k < work.size(); ++k) {
    const double length = stage_path(facts, pt, k, m, t);
    best.lengths.push_back(length);
    if (length > longest) {
      longest = length;
      best.stage = k;
    }
  }
  const double idle = stage_path(facts, pt, best.stage, m, 0);
  best.bubble = idle - m * (pt.f[best.stage] + pt.b[best.stage] + pt.w[best.stage]);
  best.transfers = longest - idle;
  return best;
}

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
  double total = 0, last = 0;
  for (const auto& b : sc.buckets) {
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
  double exposed = 0;
  if (s.strategy.zero_facts().reduces_every_microbatch) {
    // interleaved: each chunk's item reduces its chunk's share, a v-th of each
    const double v = plan.schedule_facts().virtual_stages ? plan.vpp : 1;
    const double r = total / v, item = micro_batch / v, bwd = backward / v, paced = pace / v;
    const auto hidden = [&](double n, double cover) {
      return std::pair{n * std::max(0.0, r - cover), n * contention_seconds(cover, r, slow)};
    };
    const auto [whole_x, whole_c] = hidden(covers.whole, item);
    const auto [paced_x, paced_c] = hidden(covers.paced, paced);
    const auto [tight_x, tight_c] = hidden(covers.tight, bwd);
    exposed = s.strategy.overlap_grad_reduce
                  ? std::max(last, r - bwd + whole_x + paced_x + tight_x) + whole_c + paced_c +
                        tight_c + contention_seconds(bwd, r - last, slow)
                  : m * total;
  } else {
    exposed = s.strategy.overlap_grad_reduce ? std::max(last, total - backward) +
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
void add_tail(const Scenario& s, const Plan& plan, const StepCosts& c,
              const std::vector<StageWork>& work, const std::vector<double>& spans,
              AnalyticResult& r) {
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
                 (o.b.total() + o.w.total() - chain_trail(plan, o)) / std::max(1, plan.vpp) +
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
  for (auto [category, seconds] : {std::pair{TimeCategory::kDpComm, best.dp},
                                   {TimeCategory::kOptimizer, best.optimizer},
                                   {TimeCategory::kOffload, best.offload}}) {
    const double cut = std::min(hidden, seconds);
    hidden -= cut;
    r.breakdown.add(category, seconds - cut);
  }
}

}  // namespace

AnalyticResult analytic_step(const Scenario& s, const Plan& plan, const StepCosts& c) {
  AnalyticResult r;
  std::vector<StageWork> work;
  work.reserve(plan.stages.size());
  std::vector<std::size_t> costed;  // stages whose work was summed (distinct shapes)
  costed.reserve(plan.stages.size());
  double worst = -1;
  const bool zero3 = s.strategy.zero_facts().gathers_params_per_layer;
  for (const auto& st : plan.stages) {
    std::size_t twin = work.size();
    for (std::size_t a : costed)
      if (same_work(c, plan.stages[a], st)) {
        twin = a;
        break;
      }
    if (twin < work.size()) {
      work.push_back(work[twin]);
    } else {
      costed.push_back(work.size());
      work.push_back(stage_work(s, plan, c, st, zero3));
    }
    const auto& sw = work.back();
    r.model_flops += sw.model_flops;
    r.hardware_flops += sw.hardware_flops;
    const double t = sw.f.total() + sw.b.total() + sw.w.total();
    if (t > worst) {
      worst = t;
      r.bottleneck_stage = st.index;
    }
  }
  const ScheduleTraits& facts = plan.schedule_facts();
  const bool zb = facts.split_weight_grad;
  const double m = double(plan.micro_batches);
  const int p = plan.pp;
  double bubble = 0, transfers = 0;
  std::vector<double> spans;  // ZB-H2's stage spans, for the tails' leads
  if (p > 1 && (is_one_f_one_b(facts) || zb)) {
    // 1F1B and the zero-bubble schedules: the longest stage path (stage_paths above).
    const PipelinePath path = stage_paths(facts, work, m, c.p2p_seconds);
    r.bottleneck_stage = int(path.stage);
    bubble = path.bubble;
    transfers = path.transfers;
    if (facts.greedy) spans = path.lengths;
  } else {
    // GPipe and interleaved (or one stage): the bottleneck runs all m micro-batches, every other
    // stage adds its fill/drain (its backward as the pipeline waits for it: without ZeRO-3's
    // trailing reduce-scatters).
    for (const auto& o : work) {
      if (&o == &work[std::size_t(r.bottleneck_stage)]) continue;
      bubble += fill_drain(o.f.total(), o.b.total() + o.w.total() - chain_trail(plan, o), plan.vpp);
    }
    transfers = p > 1 ? pipeline_transfers(plan.schedule, p, plan.vpp, c.p2p_seconds) : 0;
  }
  const StageWork& sw = work[std::size_t(r.bottleneck_stage)];
  TimeSplit per_mb = sw.f;
  per_mb += sw.b;
  per_mb += sw.w;
  r.breakdown = per_mb.scaled(m);
  r.breakdown.add(TimeCategory::kBubble, bubble);
  r.breakdown.add(TimeCategory::kPpComm, transfers);
  add_tail(s, plan, c, work, spans, r);
  r.breakdown.add(TimeCategory::kHostDispatch, c.step_host_seconds);
  r.step_seconds = r.breakdown.total();
  return r;
}

Throughput throughput(const Scenario& s, const Plan& plan, const StepCosts& c, double step) {
  if (step <= 0) return {};
  double model = 0, hardware = 0;  // per GPU per step: every rank of a stage does the same work
  for (const auto& st : plan.stages) {
    const StageFlops sf = stage_flops(c, st);
    model += sf.model;
    hardware += sf.hardware;
  }
  return throughput(s, plan, c, step, model, hardware);
}

Throughput throughput(const Scenario& s, const Plan& plan, const StepCosts& c, double step,
                      double model, double hardware) {
  Throughput t;
  if (step <= 0) return t;
  const double m = double(plan.micro_batches);
  model *= m / plan.pp;
  hardware *= m / plan.pp;
  t.tokens_per_second = double(s.training.global_batch) * double(s.training.seq_len) / step;
  t.model_tflops_per_gpu = model / step / 1e12;
  t.hardware_tflops_per_gpu = hardware / step / 1e12;
  if (c.peak_flops_per_gpu > 0) {
    t.mfu = model / step / c.peak_flops_per_gpu;
    t.hfu = hardware / step / c.peak_flops_per_gpu;
  }
  return t;
}

}  // namespace shardsim
