#include "simulator/analytic/analytic.h"

#include <algorithm>
#include <vector>

#include "simulator/analytic/pipeline_paths.h"
#include "simulator/analytic/stage_tail.h"
#include "simulator/analytic/stage_work.h"

namespace shardsim {
namespace {

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

struct PipelinePath {
  std::size_t stage = 0;
  double bubble = 0, transfers = 0;
  std::vector<double> lengths;  // every stage's path (ZB-H2: span), transfers included
};

// Each stage's forward, backward-input and backward-weight item (non-ZB schedules fold the weight
// pass into the backward), and its backward as its neighbours wait for it. Taken without the
// parameter-offload lead credit (StageWork::credit_f/b): another stage's item on a stage's path
// waited for its input, so the lead it was credited with has run by then (its time from its
// start is at least its time alone; exact for the items no reduce-scatter precedes). The stage's
// own items, back to back, keep it (stage_path).
struct PassTimes {
  std::vector<double> f, b, w, chain, last, own, credit_f, credit_b;
};

PassTimes pass_times(const std::vector<StageWork>& work, bool zb, double m) {
  PassTimes pt;
  for (const auto& sw : work) {
    pt.f.push_back(sw.f.total() + sw.credit_f);
    pt.b.push_back(sw.b.total() + sw.credit_b + (zb ? 0 : sw.w.total()));
    pt.w.push_back(zb ? sw.w.total() : 0);
    pt.last.push_back(pt.b.back() - sw.zero3_trail - sw.sync_reduce);
    // ZeRO-2's synchronous reduction holds every backward but the last micro-batch's
    pt.chain.push_back(m > 1 ? pt.last.back() + sw.sync_reduce : pt.last.back());
    pt.own.push_back(sw.zero3_trail);
    pt.credit_f.push_back(sw.credit_f);
    pt.credit_b.push_back(sw.credit_b);
  }
  return pt;
}

// Stage k's path (pipeline_paths.h): 1F1B's, ZB-H1's, or ZB-H2's span, with stage k's own items
// credited (pt is restored, bit for bit, before it returns).
double stage_path(const ScheduleTraits& facts, PassTimes& pt, std::size_t k, double m, double t) {
  const double f = pt.f[k], b = pt.b[k], chain = pt.chain[k], last = pt.last[k];
  pt.f[k] -= pt.credit_f[k];
  pt.b[k] -= pt.credit_b[k];
  pt.chain[k] -= pt.credit_b[k];
  pt.last[k] -= pt.credit_b[k];
  double length = 0;
  if (!facts.split_weight_grad)
    length = one_f_one_b_path(pt.f, pt.b, pt.chain, pt.last, pt.own, k, m, t);
  else
    length = facts.greedy ? zb_h2_span(pt.f, pt.b, pt.w, pt.chain, k, m, t)
                          : zb_h1_path(pt.f, pt.b, pt.w, pt.chain, k, m, t);
  pt.f[k] = f;
  pt.b[k] = b;
  pt.chain[k] = chain;
  pt.last[k] = last;
  return length;
}

// The longest stage path of 1F1B, ZB-H1 or ZB-H2 (pipeline_paths.h).
PipelinePath stage_paths(const ScheduleTraits& facts, const std::vector<StageWork>& work, double m,
                         double t) {
  PassTimes pt = pass_times(work, facts.split_weight_grad, m);
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
  const std::size_t k = best.stage;
  best.bubble = idle - m * ((pt.f[k] - pt.credit_f[k]) + (pt.b[k] - pt.credit_b[k]) + pt.w[k]);
  best.transfers = longest - idle;
  return best;
}

// GPipe and interleaved with ZeRO-2's synchronous reductions (StageWork::sync_reduce): the stage
// whose path is longest, and the other stages' fill/drain on it. A later stage's first backward
// comes before that stage's and waits for its reduction unless it is also the last (m = 1); an
// earlier stage drains the last micro-batch, which does not wait (its reduction is the stage
// tail's). The first micro-batch's held reductions cross every later stage, so the stage with
// the most work need not set the path. One pass over prefix sums of either kind of fill/drain.
struct GpipePath {
  std::size_t stage = 0;
  double bubble = 0;
};

// The stage k whose m items, less the last micro-batch's synchronous reduction (StageWork::
// sync_reduce, the tail's), plus others[k], the other stages' fill/drain on it, take longest.
GpipePath longest_stage(const std::vector<StageWork>& work, double m,
                        const std::vector<double>& others) {
  GpipePath best;
  double longest = -1;
  for (std::size_t k = 0; k < work.size(); ++k) {
    const StageWork& o = work[k];
    const double length = m * (o.f.total() + o.b.total() + o.w.total()) - o.sync_reduce + others[k];
    if (length > longest) {
      longest = length;
      best = {k, others[k]};
    }
  }
  return best;
}

GpipePath gpipe_path(const Plan& plan, const std::vector<StageWork>& work, double m) {
  const std::size_t p = work.size();
  std::vector<double> drained(p + 1, 0.0), held(p + 1, 0.0);
  for (std::size_t j = 0; j < p; ++j) {
    const StageWork& o = work[j];
    const double b = o.b.total() + o.w.total() - chain_trail(plan, o);
    drained[j + 1] = drained[j] + fill_drain(o.f.total(), b - o.sync_reduce, plan.vpp);
    held[j + 1] = held[j] + fill_drain(o.f.total(), m > 1 ? b : b - o.sync_reduce, plan.vpp);
  }
  std::vector<double> others(p);
  for (std::size_t k = 0; k < p; ++k) others[k] = drained[k] + (held[p] - held[k + 1]);
  return longest_stage(work, m, others);
}

// Interleaved 1F1B with chunks of unequal work (a layer count that the virtual stages do not
// divide): stage k starts once the first micro-batch's forward has crossed chunk 0 of every
// earlier stage and ends once the last backward, chunk 0's, has crossed them back; between, it
// waits for the round trips through the later stages' last chunk, which its warm-up forwards
// cover as far as they would with equal chunks. So the other stages' fill/drain on stage k is at
// least the earlier stages' chunk 0 and the later stages' chunk v - 1; and at least, as with
// equal chunks, a v-th of each other stage (fill_drain): unequal chunks also stall the steady
// state, which neither counts (mixtral-8x7b-16xh100 at pp 2, vpp 3, chunks of 4, 6, 6 and 6, 6, 4
// layers: the first bound is 2.0 % below the DES, the second 0.3 % above). The step is the
// longest such path. A chunk's share of its stage's items is its share of the stage's compute
// (its units' work), so each stage's exposures (ZeRO-3, the host) divide as its compute does.
// (Until 2026-11-29 every stage took the second bound alone: -7.2 % against the DES on
// mixtral-8x7b-16xh100 at pp 8, vpp 3, whose 32 layers put 2 in chunk 0 of seven stages and 1 in
// the others; now -0.5 %.) With equal chunks and no embedding or output layer the two bounds are
// equal; the embedding and the output layer (logits, loss) sit in one chunk each, which the first
// bound counts whole where the v-th spreads them, so it can exceed the v-th on a plan whose
// layers divide evenly too. ZeRO-2 without overlapped reduction takes gpipe_path, the v-th alone.
GpipePath interleaved_path(const Plan& plan, const std::vector<StageWork>& work, double m) {
  struct Shares {
    double first, last, even;
  };
  // Another stage's items keep their offload lead credit here (StageWork::credit_f/b), unlike
  // on the other paths: this bound already over-states most offloaded interleaved plans, and
  // without the credit three samples of 30 came out 0.02-0.05 points further from the DES.
  auto shares = [&](const StageWork& o) {
    const double f = o.f.total(), b = o.b.total() + o.w.total() - chain_trail(plan, o);
    return Shares{f * o.first_chunk_f + b * o.first_chunk_b,
                  f * o.last_chunk_f + b * o.last_chunk_b, fill_drain(f, b, plan.vpp)};
  };
  const std::size_t p = work.size();
  std::vector<Shares> sh(p);
  for (std::size_t i = 0; i < p; ++i) sh[i] = shares(work[i]);
  // the later stages' last chunks, summed from the last stage down (exact zero at k = p - 1)
  std::vector<double> after(p + 1, 0.0);
  double even = 0;
  for (std::size_t i = p; i-- > 0;) {
    after[i] = after[i + 1] + sh[i].last;
    even += sh[i].even;
  }
  std::vector<double> others(p);
  double before = 0;
  for (std::size_t k = 0; k < p; ++k) {
    others[k] = std::max(even - sh[k].even, before + after[k + 1]);
    before += sh[k].first;
  }
  return longest_stage(work, m, others);  // no synchronous reductions here: sync_reduce is 0
}

// GPipe: the stages before the bottleneck k drain its last micro-batch from k's last compute
// (a transfer t per boundary), beside k's own trailing ZeRO-3 reduce-scatters, and each stage's
// trail runs after its own last compute. fill_drain and the transfers count the drain's
// backwards and hops, and k's items hold its trail, in series; the step ends at the latest of
// those ends instead. The correction (negative when k's trail outlasts the drain; exactly 0
// without ZeRO-3 trails; until 2026-11-29 the step ended at stage 0's last compute when a later
// stage was the bottleneck).
double drain_trails(const std::vector<StageWork>& work, std::size_t k, double t) {
  if (std::none_of(work.begin(), work.begin() + std::ptrdiff_t(k) + 1,
                   [](const StageWork& o) { return o.zero3_trail > 0; }))
    return 0;
  double drained = 0, end = work[k].zero3_trail;
  for (std::size_t i = k; i-- > 0;) {
    const StageWork& o = work[i];
    drained += o.b.total() + o.credit_b + o.w.total() - o.zero3_trail + t;
    end = std::max(end, drained + o.zero3_trail);
  }
  return end - work[k].zero3_trail - drained;
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
  // Under parameter offload a stage's work depends on its place in the program too (which items
  // follow a reduce-scatter: stage_work.cc offload_lead_counts), so no stage stands for another
  // (found by review, 2026-11-29).
  const bool by_place = zero3 && s.strategy.offload_params;
  for (const auto& st : plan.stages) {
    std::size_t twin = work.size();
    for (std::size_t a : costed)
      if (!by_place && same_work(c, plan.stages[a], st)) {
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
  const bool paths = p > 1 && (is_one_f_one_b(facts) || zb);
  if (paths) {
    // 1F1B and the zero-bubble schedules: the longest stage path (stage_paths above).
    const PipelinePath path = stage_paths(facts, work, m, c.p2p_seconds);
    r.bottleneck_stage = int(path.stage);
    bubble = path.bubble;
    transfers = path.transfers;
    if (facts.greedy) spans = path.lengths;
  } else {
    // GPipe and interleaved (or one stage): the bottleneck runs all m micro-batches, every other
    // stage adds its fill/drain (its backward as the pipeline waits for it: without ZeRO-3's
    // trailing reduce-scatters); with ZeRO-2's synchronous reductions, gpipe_path.
    if (std::any_of(work.begin(), work.end(),
                    [](const StageWork& o) { return o.sync_reduce > 0; })) {
      const GpipePath path = gpipe_path(plan, work, m);
      r.bottleneck_stage = int(path.stage);
      bubble = path.bubble;
    } else if (plan.vpp > 1) {
      const GpipePath path = interleaved_path(plan, work, m);
      r.bottleneck_stage = int(path.stage);
      bubble = path.bubble;
    } else {
      const std::size_t k = std::size_t(r.bottleneck_stage);
      for (const auto& o : work) {
        if (&o == &work[k]) continue;
        bubble +=
            fill_drain(o.f.total() + o.credit_f,
                       o.b.total() + o.credit_b + o.w.total() - chain_trail(plan, o), plan.vpp);
      }
      bubble += drain_trails(work, k, c.p2p_seconds);
    }
    transfers = p > 1 ? pipeline_transfers(plan.schedule, p, plan.vpp, c.p2p_seconds) : 0;
  }
  const StageWork& sw = work[std::size_t(r.bottleneck_stage)];
  TimeSplit per_mb = sw.f;
  per_mb += sw.b;
  per_mb += sw.w;
  r.breakdown = per_mb.scaled(m);
  // The last micro-batch's synchronous ZeRO-2 reduction does not hold its item; the stage tail
  // takes it, beside the drain (the 1F1B stage paths leave it out of their bubble already).
  if (!paths) r.breakdown.add(TimeCategory::kDpComm, -sw.sync_reduce);
  r.breakdown.add(TimeCategory::kBubble, bubble);
  r.breakdown.add(TimeCategory::kPpComm, transfers);
  const StageTail tail = stage_tail(s, plan, c, work, spans);
  r.breakdown.add(TimeCategory::kDpComm, tail.dp);
  r.breakdown.add(TimeCategory::kOptimizer, tail.optimizer);
  r.breakdown.add(TimeCategory::kOffload, tail.offload);
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
