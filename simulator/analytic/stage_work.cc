#include "simulator/analytic/stage_work.h"

#include <algorithm>
#include <vector>

#include "simulator/analytic/pipeline_paths.h"
#include "simulator/cost/contention.h"
#include "simulator/cost/host_dispatch.h"

namespace shardsim {

double chain_trail(const Plan& plan, const StageWork& sw) {
  return plan.schedule_facts().virtual_stages ? 0 : sw.zero3_trail;
}

namespace {

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

}  // namespace

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
  // ZeRO-2 without overlap: each backward item ends after its micro-batch's reduction (the
  // zero-bubble schedules' weight items, off the chain, keep it in the stage tail). Until
  // 2026-11-29 it was all counted in the tail, beside the drain, so no stage waited for another's:
  // -33.6 % against the DES on a 1F1B plan whose data-parallel group spans nodes (found by a
  // metamorphic review).
  if (s.strategy.zero_facts().reduces_every_microbatch && !s.strategy.overlap_grad_reduce && !zb) {
    for (const auto& bucket : c.stages[std::size_t(st.index)].buckets)
      if (!bucket.once_per_step) sw.sync_reduce += bucket.seconds;
    sw.b.add(TimeCategory::kDpComm, sw.sync_reduce);
  }
  return sw;
}

StageFlops stage_flops(const StepCosts& c, const PipelineStage& st) {
  StageFlops sf;
  for_each_unit_work(c, st, [&sf](const WorkCost& wc) {
    sf.model += wc.model_flops;
    sf.hardware += wc.hardware_flops;
  });
  return sf;
}

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

bool is_one_f_one_b(const ScheduleTraits& facts) {
  return facts.tight_steady_state && !facts.split_weight_grad && !facts.virtual_stages;
}

bool is_zb_h1(const ScheduleTraits& facts) {
  return facts.split_weight_grad && !facts.greedy;
}

}  // namespace shardsim
