#include "simulator/analytic/stage_work.h"

#include <algorithm>
#include <vector>

#include "simulator/analytic/pipeline_paths.h"
#include "simulator/cost/host_dispatch.h"
#include "simulator/plan/schedule.h"

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
// traffic slows the compute it overlaps (contention.h), inside the item: charged to the
// data-parallel communication too. (Until 2026-11-27 an item exposed its first gather on top of the
// traffic its compute could not cover, every chunk's first gather was taken to be the stage's first
// unit's, and parameter offload's copies were left out: +25 and +32 % against the DES on GPT-3
// with ZeRO-3 at vpp 3 and 6, -60 to -82 % with offloaded parameters; found by review.)
void add_zero3_exposure(const StepCosts& c, const Plan& plan, const PipelineStage& st, int prefetch,
                        bool zb, StageWork& sw) {
  const std::size_t depth = std::size_t(std::max(0, prefetch));
  double exposed_f = 0, exposed_b = 0, exposed_w = 0;
  bool copies = false;
  std::vector<std::vector<Zero3Unit>> forward_units(st.chunks.size());
  std::vector<double> trail(st.chunks.size(), 0);  // of each chunk's reduce-scatter item
  std::vector<const LayerCost*> chunk;
  // one item over the chunk's units in their current order, each computing compute_of(its work)
  auto units_of = [&](auto compute_of) {
    std::vector<Zero3Unit> units;
    for (const LayerCost* lc : chunk)
      units.push_back({lc->zero3_gather_seconds, lc->zero3_reduce_seconds, compute_of(lc->work),
                       lc->zero3_h2d_seconds});
    return units;
  };
  auto item = [&](const std::vector<Zero3Unit>& units, bool gathers, bool reduces,
                  double lead = 0) {
    return zero3_item_exposed(units, depth, gathers, reduces, c.overlap_slowdown, lead);
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
    forward_units[ci] = units_of(fwd);
    for (const Zero3Unit& u : forward_units[ci]) copies = copies || u.h2d > 0;
    exposed_f += item(forward_units[ci], true, false).exposed;
    std::reverse(chunk.begin(), chunk.end());  // the backward passes run the units backwards
    if (zb) {
      exposed_b += item(units_of(input), true, false).exposed;
      const Zero3Item w = item(units_of(weight), false, true);
      exposed_w += w.exposed;
      trail[ci] = w.trail;
    } else {
      const Zero3Item b = item(units_of(backward), true, true);  // input and weight gradients
      exposed_b += b.exposed;
      trail[ci] = b.trail;
      sw.zero3_trail += b.trail;
    }
  }
  // Parameter offload: a forward that follows a reduce-scatter item in the stage's program (the
  // backward; under ZB-H1 the weight pass) starts its copies beside that item's trailing
  // reduce-scatters, which the item already counts; the forward adds what it exposes beyond them.
  // Averaged over the stage's forwards, as f is one micro-batch's. ZB-H2 has no fixed program
  // (the DES schedules it greedily): its forwards are taken as following no such item.
  if (copies && plan.micro_batches > 0) {
    const std::vector<ProgramItem> program =
        stage_program(plan.schedule, st.index, plan.pp, plan.vpp, plan.micro_batches);
    const Pass reducer = zb ? Pass::kBackwardWeight : Pass::kBackwardInput;
    const std::size_t v = st.chunks.size();
    std::vector<double> saved(v * v, 0);  // [forward's chunk][previous item's chunk]
    std::vector<bool> known(v * v, false);
    double sum = 0;
    int prev_chunk = -1;  // the chunk of the item just before, when it reduce-scatters
    for (const ProgramItem& it : program) {
      const std::size_t chunk_of = std::size_t(
          order_position(st.index, it.k, it.pass != Pass::kForward, plan.pp, plan.vpp).first /
          plan.pp);
      if (it.pass == Pass::kForward && prev_chunk >= 0) {
        const std::size_t key = chunk_of * v + std::size_t(prev_chunk);
        double& d = saved[key];
        if (!known[key]) {
          known[key] = true;
          const double lead = trail[std::size_t(prev_chunk)];
          const std::vector<Zero3Unit>& units = forward_units[chunk_of];
          d = item(units, true, false).exposed - (item(units, true, false, lead).exposed - lead);
        }
        sum += d;
      }
      prev_chunk = it.pass == reducer ? int(chunk_of) : -1;
    }
    exposed_f -= sum / double(plan.micro_batches);
  }
  sw.f.add(TimeCategory::kDpComm, exposed_f);
  sw.b.add(TimeCategory::kDpComm, exposed_b);
  if (zb) sw.w.add(TimeCategory::kDpComm, exposed_w);
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

// The first and last chunk's shares of the stage's forward and backward compute.
void chunk_shares(const StepCosts& c, const PipelineStage& st, StageWork& sw) {
  const std::size_t chunks = st.chunks.size();
  const double v = double(chunks);
  // Chunks of as many blocks of one cost each, without the embedding or output: a v-th each.
  bool even = !st.has_embedding && !st.has_output;
  const LayerCost* one = &c.layer(st.chunks[0].first_layer);
  for (const StageChunk& ch : st.chunks) {
    even = even && ch.layers == st.chunks[0].layers;
    for (int l = ch.first_layer; even && l < ch.first_layer + ch.layers; ++l)
      even = &c.layer(l) == one;
  }
  if (even) {
    sw.first_chunk_f = sw.first_chunk_b = sw.last_chunk_f = sw.last_chunk_b = 1 / v;
    return;
  }
  double f_all = 0, b_all = 0;
  const LayerCost* seen = nullptr;  // consecutive blocks mostly share their kind's costs
  double seen_f = 0, seen_b = 0;
  for (std::size_t ci = 0; ci < chunks; ++ci) {
    double f = 0, b = 0;
    auto add = [&](const LayerCost& lc) {
      if (&lc != seen) {
        seen = &lc;
        seen_f = lc.work.fwd.total();
        seen_b = lc.work.bwd_input.total() + lc.work.bwd_weight.total();
      }
      f += seen_f;
      b += seen_b;
    };
    if (ci == 0 && st.has_embedding) add(c.embedding);
    const StageChunk& ch = st.chunks[ci];
    for (int l = ch.first_layer; l < ch.first_layer + ch.layers; ++l) add(c.layer(l));
    if (ci + 1 == chunks && st.has_output) add(c.output);
    f_all += f;
    b_all += b;
    if (ci == 0) sw.first_chunk_f = f, sw.first_chunk_b = b;
    if (ci + 1 == chunks) sw.last_chunk_f = f, sw.last_chunk_b = b;
  }
  auto share = [v](double part, double all) { return all > 0 ? part / all : 1 / v; };
  sw.first_chunk_f = share(sw.first_chunk_f, f_all);
  sw.first_chunk_b = share(sw.first_chunk_b, b_all);
  sw.last_chunk_f = share(sw.last_chunk_f, f_all);
  sw.last_chunk_b = share(sw.last_chunk_b, b_all);
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
  if (st.chunks.size() > 1) chunk_shares(c, st, sw);
  const bool zb = plan.schedule_facts().split_weight_grad;
  if (zero3) add_zero3_exposure(c, plan, st, s.strategy.zero3_prefetch, zb, sw);
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
