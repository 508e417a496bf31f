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

// Parameter offload under a fixed program (plan/schedule.h stage_program): how many of stage
// `stage`'s gathering items follow an item that reduce-scatters, by kind (0: forward, 1: backward
// input), the item's chunk and the chunk of the item before it: counts[(kind v + chunk) v +
// before]. In closed form, not by walking the m v items (found by review, 2026-11-29: the walk
// made the analytic model O(m)). After `warmup` forwards the program pairs forward warmup + j
// with backward j, then runs the remaining backwards; non-ZB backwards reduce-scatter, ZB-H1's
// weight pass does, after backward k >= stage (v = 1). The chunks of the pairs repeat every p v
// entries (order_position), so one period with its multiplicity gives the counts.
std::vector<std::int64_t> offload_lead_counts(const Plan& plan, int stage, bool zb) {
  const std::size_t v = std::size_t(plan.vpp);
  std::vector<std::int64_t> counts(2 * v * v, 0);
  const std::int64_t total = plan.micro_batches * plan.vpp;
  const std::int64_t warmup = warmup_forwards(plan.schedule, stage, plan.pp, plan.vpp, total);
  const std::int64_t pairs = total - warmup;
  const std::int64_t span = std::int64_t(plan.pp) * plan.vpp;
  auto chunk_of = [&](std::int64_t k, bool backward) {
    return std::size_t(order_position(stage, k, backward, plan.pp, plan.vpp).first / plan.pp);
  };
  // Each x in [lo, hi) with its key; x and x + span have the same key.
  auto over = [&](std::int64_t lo, std::int64_t hi, auto&& add) {
    for (std::int64_t x = lo; x < std::min(hi, lo + span); ++x) add(x, (hi - 1 - x) / span + 1);
  };
  if (zb) {
    // F of pair j >= 1 follows pair j - 1's weight pass when j - 1 >= stage; backward k of the
    // rest follows backward k - 1's when k - 1 >= stage (k = pairs: the last pair's).
    counts[0] = std::max<std::int64_t>(0, pairs - 1 - std::max<std::int64_t>(0, stage));
    counts[1] = std::max<std::int64_t>(
        0, total - std::max({pairs, std::int64_t(1), std::int64_t(stage) + 1}));
    return counts;
  }
  // Forward warmup + j follows backward j - 1 (j >= 1).
  over(1, pairs, [&](std::int64_t j, std::int64_t n) {
    counts[(0 * v + chunk_of(warmup + j, false)) * v + chunk_of(j - 1, true)] += n;
  });
  // Backward k follows backward k - 1 once the forwards have run out.
  over(std::max<std::int64_t>(pairs, 1), total, [&](std::int64_t k, std::int64_t n) {
    counts[(1 * v + chunk_of(k, true)) * v + chunk_of(k - 1, true)] += n;
  });
  return counts;
}

namespace {

// The host bound (cost/host_dispatch.h): each pass takes at least the time the host needs to issue
// it; what exceeds the GPU's time is the GPU waiting for the host. Non-ZB schedules run the weight
// gradients inside the backward item, so b and w are one item there.
// The items that reduce gradients overlapped (a share `per_unit` of the micro-batches) are
// priced unit by unit instead, as the DES issues them (des/step_program.cc start_item: a
// segment per unit, each with its own host bound); `by_unit` is that sum for the reducing pass
// (non-ZB: the backward; ZB: the weight pass). (Until 2026-11-29 every item was priced whole:
// -0.86 % against the DES on a host-bound ZeRO-2 plan, found by review.)
void add_host_bound(bool zb, double sync, double per_unit, double by_unit, StageWork& sw) {
  auto mixed = [&](double whole) {
    return per_unit > 0 && by_unit != whole ? per_unit * by_unit + (1 - per_unit) * whole : whole;
  };
  sw.f.add(TimeCategory::kHostDispatch, host_exposed(sw.host_f, sw.f.total(), sync));
  if (zb) {
    sw.b.add(TimeCategory::kHostDispatch, host_exposed(sw.host_b, sw.b.total(), sync));
    sw.w.add(TimeCategory::kHostDispatch, mixed(host_exposed(sw.host_w, sw.w.total(), sync)));
  } else {
    sw.b.add(TimeCategory::kHostDispatch,
             mixed(host_exposed(sw.host_b + sw.host_w, sw.b.total() + sw.w.total(), sync)));
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
// Without overlap (parallel.overlap_grad_reduce false) a reducing item is serial
// (zero3_item_exposed): each unit's compute waits for the previous unit's reduce-scatter.
void add_zero3_exposure(const StepCosts& c, const Plan& plan, const PipelineStage& st, int prefetch,
                        bool zb, double sync, bool overlap_reduce, StageWork& sw) {
  const std::size_t depth = std::size_t(std::max(0, prefetch));
  // The host bound per unit, as the DES prices a ZeRO-3 item's segments (des/step_program.cc
  // start_item): each unit's compute holds the time its GPU waits for the host to issue it, so
  // an item waiting on its gathers or copies hides the host of all but the units it waits
  // after. (Until 2026-11-29 the host bound was added to the whole pass afterwards: +2.6 ms on
  // each 120 ms copy-bound forward of mixtral-8x7b-16xh100 with offloaded parameters.)
  double host_f = 0, host_b = 0, host_w = 0;
  // exposed time, and of it the waits the DES charges to the copies (Zero3Item::offload)
  double exposed_f = 0, exposed_b = 0, exposed_w = 0, offload_f = 0, offload_b = 0;
  bool copies = false;
  const std::size_t chunks = st.chunks.size();
  std::vector<std::vector<Zero3Unit>> forward_units(chunks), backward_units(chunks);
  std::vector<Zero3Item> forward_alone(chunks), backward_alone(chunks);  // each item alone
  std::vector<double> trail(chunks, 0);  // of each chunk's reduce-scatter item
  std::vector<const LayerCost*> chunk;
  // one item over the chunk's units in their current order, each computing compute_of(its work)
  // plus the host time it exposes (host_of: the pass's dispatch seconds), summed into `host`
  auto units_of = [&](auto compute_of, auto host_of, double& host) {
    std::vector<Zero3Unit> units;
    for (const LayerCost* lc : chunk) {
      const double gpu = compute_of(lc->work);
      const double waits = host_exposed(host_of(lc->work), gpu, sync);
      host += waits;
      units.push_back(
          {lc->zero3_gather_seconds, lc->zero3_reduce_seconds, gpu + waits, lc->zero3_h2d_seconds});
    }
    return units;
  };
  auto item = [&](const std::vector<Zero3Unit>& units, bool gathers, bool reduces,
                  double lead = 0) {
    return zero3_item_exposed(units, depth, gathers, reduces, c.overlap_slowdown, lead,
                              !overlap_reduce);
  };
  const auto fwd = [](const WorkCost& w) { return w.fwd.total(); };
  const auto input = [](const WorkCost& w) { return w.bwd_input.total(); };
  const auto weight = [](const WorkCost& w) { return w.bwd_weight.total(); };
  const auto backward = [](const WorkCost& w) {
    return w.bwd_input.total() + w.bwd_weight.total();
  };
  const auto host_fwd = [](const WorkCost& w) { return w.host_fwd; };
  const auto host_input = [](const WorkCost& w) { return w.host_bwd_input; };
  const auto host_weight = [](const WorkCost& w) { return w.host_bwd_weight; };
  const auto host_backward = [](const WorkCost& w) { return w.host_bwd_input + w.host_bwd_weight; };
  for (std::size_t ci = 0; ci < st.chunks.size(); ++ci) {
    chunk.clear();  // forward order, as des/step_program.cc item_units
    if (ci == 0 && st.has_embedding) chunk.push_back(&c.embedding);
    const StageChunk& ch = st.chunks[ci];
    for (int l = ch.first_layer; l < ch.first_layer + ch.layers; ++l) chunk.push_back(&c.layer(l));
    if (ci + 1 == st.chunks.size() && st.has_output) chunk.push_back(&c.output);
    forward_units[ci] = units_of(fwd, host_fwd, host_f);
    for (const Zero3Unit& u : forward_units[ci]) copies = copies || u.h2d > 0;
    forward_alone[ci] = item(forward_units[ci], true, false);
    exposed_f += forward_alone[ci].exposed;
    offload_f += forward_alone[ci].offload;
    std::reverse(chunk.begin(), chunk.end());  // the backward passes run the units backwards
    if (zb) {
      backward_units[ci] = units_of(input, host_input, host_b);
      backward_alone[ci] = item(backward_units[ci], true, false);
      exposed_b += backward_alone[ci].exposed;
      offload_b += backward_alone[ci].offload;
      const Zero3Item w = item(units_of(weight, host_weight, host_w), false, true);
      exposed_w += w.exposed;
      trail[ci] = w.trail;
    } else {
      backward_units[ci] = units_of(backward, host_backward, host_b);  // input and weight
      backward_alone[ci] = item(backward_units[ci], true, true);
      exposed_b += backward_alone[ci].exposed;
      offload_b += backward_alone[ci].offload;
      trail[ci] = backward_alone[ci].trail;
      sw.zero3_trail += backward_alone[ci].trail;
    }
  }
  // Parameter offload: an item that gathers (a forward, a backward) and follows one that
  // reduce-scatters (non-ZB: a backward; ZB-H1: a weight pass) starts its copies beside that
  // item's trailing reduce-scatters, which the earlier item already counts; it adds what it
  // exposes beyond them. Averaged over the stage's items, as f and b are one micro-batch's.
  // ZB-H2 has no fixed program (the DES schedules it greedily): nothing follows such an item.
  if (copies && !plan.schedule_facts().greedy) {
    const std::vector<std::int64_t> counts = offload_lead_counts(plan, st.index, zb);
    const std::size_t v = st.chunks.size();
    double saved_f = 0, saved_b = 0, saved_offload_f = 0, saved_offload_b = 0;
    for (std::size_t later = 0; later < v; ++later)
      for (std::size_t before = 0; before < v; ++before) {
        const double lead = trail[before];
        const std::int64_t nf = counts[(0 * v + later) * v + before];
        const std::int64_t nb = counts[(1 * v + later) * v + before];
        if (lead <= 0 || (nf == 0 && nb == 0)) continue;
        // saved = exposed alone - (exposed behind the lead - the lead); the copies' share of it
        // is what they stop charging (the lead is data-parallel time, started before them)
        if (nf > 0) {
          const Zero3Item behind = item(forward_units[later], true, false, lead);
          saved_f += double(nf) * (forward_alone[later].exposed - (behind.exposed - lead));
          saved_offload_f += double(nf) * (forward_alone[later].offload - behind.offload);
        }
        if (nb > 0) {
          const Zero3Item behind = item(backward_units[later], true, !zb, lead);
          saved_b += double(nb) * (backward_alone[later].exposed - (behind.exposed - lead));
          saved_offload_b += double(nb) * (backward_alone[later].offload - behind.offload);
        }
      }
    const double m = double(plan.micro_batches);
    sw.credit_f = saved_f / m;
    sw.credit_b = saved_b / m;
    exposed_f -= sw.credit_f;
    exposed_b -= sw.credit_b;
    offload_f -= saved_offload_f / m;
    offload_b -= saved_offload_b / m;
  }
  // The copies' waits under `offload`, as the DES charges them; the rest is data-parallel.
  offload_f = std::clamp(offload_f, 0.0, std::max(0.0, exposed_f));
  offload_b = std::clamp(offload_b, 0.0, std::max(0.0, exposed_b));
  sw.f.add(TimeCategory::kDpComm, exposed_f - offload_f);
  sw.f.add(TimeCategory::kOffload, offload_f);
  sw.b.add(TimeCategory::kDpComm, exposed_b - offload_b);
  sw.b.add(TimeCategory::kOffload, offload_b);
  if (zb) sw.w.add(TimeCategory::kDpComm, exposed_w);
  sw.f.add(TimeCategory::kHostDispatch, host_f);
  sw.b.add(TimeCategory::kHostDispatch, host_b);
  sw.w.add(TimeCategory::kHostDispatch, host_w);
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

// The host bound of the pass that reduces gradients (non-ZB: the backward; ZB: the weight pass),
// unit by unit over stage st (add_host_bound). A unit whose GPU time covers its host time waits
// sync x its host time, so when no layer kind, embedding or output layer is host-bound the sum
// is sync x the pass's host time (`host`), without a walk over the layers.
double reducing_host_by_unit(const StepCosts& c, const PipelineStage& st, bool zb, double sync,
                             double host) {
  auto host_of = [&](const WorkCost& wc) {
    return zb ? wc.host_bwd_weight : wc.host_bwd_input + wc.host_bwd_weight;
  };
  auto gpu_of = [&](const WorkCost& wc) {
    return zb ? wc.bwd_weight.total() : wc.bwd_input.total() + wc.bwd_weight.total();
  };
  auto bound = [&](const WorkCost& wc) { return host_exposed(host_of(wc), gpu_of(wc), sync); };
  const bool host_bound =
      std::ranges::any_of(c.kinds,
                          [&](const LayerCost& k) { return host_of(k.work) > gpu_of(k.work); }) ||
      (st.has_embedding && host_of(c.embedding.work) > gpu_of(c.embedding.work)) ||
      (st.has_output && host_of(c.output.work) > gpu_of(c.output.work));
  if (!host_bound) return sync * host;
  double sum = 0;
  for (const auto& ch : st.chunks)
    for (int l = ch.first_layer; l < ch.first_layer + ch.layers; ++l) sum += bound(c.layer(l).work);
  if (st.has_embedding) sum += bound(c.embedding.work);
  if (st.has_output) sum += bound(c.output.work);
  return sum;
}

}  // namespace

StageWork stage_work(const Scenario& s, const Plan& plan, const StepCosts& c,
                     const PipelineStage& st, bool zero3) {
  StageWork sw;
  const bool zb = plan.schedule_facts().split_weight_grad;
  const double sync = s.framework.host_sync_fraction;
  // The DES's items that reduce overlapped, priced unit by unit (add_host_bound): every
  // micro-batch's under ZeRO-2, else the last's; ZeRO-3 prices every item so (its exposure).
  const double per_unit = zero3 || !s.strategy.overlap_grad_reduce ? 0
                          : s.strategy.zero_facts().reduces_every_microbatch
                              ? 1
                              : 1 / double(plan.micro_batches);
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
  if (zero3) {
    add_zero3_exposure(c, plan, st, s.strategy.zero3_prefetch, zb, sync,
                       s.strategy.overlap_grad_reduce, sw);
  } else {
    const double by_unit =
        per_unit > 0
            ? reducing_host_by_unit(c, st, zb, sync, zb ? sw.host_w : sw.host_b + sw.host_w)
            : 0;
    add_host_bound(zb, sync, per_unit, by_unit, sw);
  }
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
