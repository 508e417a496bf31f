#include <algorithm>

#include "simulator/cost/contention.h"
#include "simulator/cost/host_dispatch.h"
#include "simulator/des/step_simulation.h"

namespace shardsim::des_internal {

void StepSimulation::pick(int i) {
  StageState& st = stages_[std::size_t(i)];
  if (st.item_running || st.finalized) return;
  if (!plan_.schedule_facts().greedy) {
    run_program(i);
    return;
  }
  // ZB-H2, greedily: a ready backward, else a forward within the in-flight limit, else a
  // deferred weight-gradient pass.
  if (try_backward(i) || try_forward(i)) return;
  if (!st.weight_pending.empty()) {
    const auto [vs, mb] = st.weight_pending.front();
    st.weight_pending.pop_front();
    start_item(i, Work::kBackwardWeight, vs, mb);
    return;
  }
  const int total = m_ * v_;
  if (st.f_next == total && st.b_next == total) finalize(i);
}

// ---- fixed programs (plan/schedule.h): GPipe, 1F1B, interleaved and ZB-H1 -----------------
void StepSimulation::run_program(int i) {
  StageState& st = stages_[std::size_t(i)];
  if (st.program.empty())
    st.program = stage_program(plan_.schedule, i, p_, v_, plan_.micro_batches);
  if (st.pc == st.program.size()) {
    finalize(i);
    return;
  }
  const ProgramItem item = st.program[st.pc];
  const auto [vs, mb] = position(i, item.k, item.pass != Work::kForward);
  if (item.pass == Work::kForward && vs > 0 && !f_in_[idx(vs, mb)]) return;
  if (item.pass == Work::kBackwardInput &&
      !(vs == V_ - 1 ? f_done_[idx(vs, mb)] != 0 : b_in_[idx(vs, mb)] != 0))
    return;
  ++st.pc;
  start_item(i, item.pass, vs, mb);
}

bool StepSimulation::try_forward(int i) {
  StageState& st = stages_[std::size_t(i)];
  if (st.f_next >= m_ * v_ || st.in_flight >= st.limit || st.holding >= hold_cap_) return false;
  const auto [vs, mb] = position(i, st.f_next, false);
  if (vs > 0 && !f_in_[idx(vs, mb)]) return false;
  ++st.f_next;
  ++st.in_flight;
  ++st.holding;
  start_item(i, Work::kForward, vs, mb);
  return true;
}

bool StepSimulation::try_backward(int i) {
  StageState& st = stages_[std::size_t(i)];
  if (st.b_next >= m_ * v_) return false;
  const auto [vs, mb] = position(i, st.b_next, true);
  const bool ready = vs == V_ - 1 ? f_done_[idx(vs, mb)] != 0 : b_in_[idx(vs, mb)] != 0;
  if (!ready) return false;
  ++st.b_next;
  start_item(i, Work::kBackwardInput, vs, mb);
  return true;
}

// ---- building work items ----------------------------------------------------------------
// One unit's time in pass w (non-ZB schedules run the weight gradient inside B).
TimeSplit StepSimulation::pass_split(const WorkCost& wc, Work w) const {
  if (w == Work::kForward) return wc.fwd;
  if (w == Work::kBackwardWeight) return wc.bwd_weight;
  TimeSplit t = wc.bwd_input;
  if (!zb_) t += wc.bwd_weight;
  return t;
}

// The host's dispatch time of one unit's pass w (cost/host_dispatch.h).
double StepSimulation::pass_host(const WorkCost& wc, Work w) const {
  if (w == Work::kForward) return wc.host_fwd;
  if (w == Work::kBackwardWeight) return wc.host_bwd_weight;
  return wc.host_bwd_input + (zb_ ? 0 : wc.host_bwd_weight);
}

// The units of one work item in execution order: the chunk's blocks (reversed in backward),
// with the embedding before them in forward on the first virtual stage and the output layer
// after them; -1 stands for the embedding, -2 for the output layer.
const std::vector<int>& StepSimulation::item_units(int vs, int first, int last, bool forward) {
  std::vector<int>& units = units_;  // reused: one item is built at a time
  units.clear();
  if (forward && vs == 0) units.push_back(-1);
  if (!forward && vs == V_ - 1) units.push_back(-2);
  for (int k = 0; k <= last - first; ++k) units.push_back(forward ? first + k : last - k);
  if (forward && vs == V_ - 1) units.push_back(-2);
  if (!forward && vs == 0) units.push_back(-1);
  return units;
}

void StepSimulation::start_item(int i, Work w, int vs, int mb) {
  touched_ = 0;
  stages_[std::size_t(i)].item_running = true;
  const StageChunk& chunk = plan_.stages[std::size_t(i)].chunks[std::size_t(vs / p_)];
  const int first = chunk.first_layer, last = chunk.first_layer + chunk.layers - 1;
  const ZeroTraits& zero = s_.strategy.zero_facts();
  const bool zero3 = zero.gathers_params_per_layer;
  // Gradient buckets are reduced after the last micro-batch's backward (ZeRO-2: after every
  // micro-batch's, since its gradients are sharded), layer by layer when overlapped.
  const bool reduce = produces_grads(w) && (mb == m_ - 1 || zero.reduces_every_microbatch);
  last_mb_ = mb == m_ - 1;
  const bool overlap = s_.strategy.overlap_grad_reduce;
  const bool per_unit = zero3 || (reduce && overlap);
  int last_task = -1;
  if (!per_unit) {
    // Per (stage, its chunk vs / p, work): p x v x 3 entries (keyed by vs it was p^2 x v x 3,
    // 4.6 GB at pp 4096).
    const std::size_t key =
        (std::size_t(i) * std::size_t(v_) + std::size_t(vs / p_)) * 3 + std::size_t(w);
    TimeSplit& all = item_split_[key];
    if (item_split_ready_[key] == 0) {
      double host = 0;
      for (int u : item_units(vs, first, last, w == Work::kForward)) {
        all += pass_split(unit_cost(u).work, w);
        host += pass_host(unit_cost(u).work, w);
      }
      all.add(TimeCategory::kHostDispatch,
              host_exposed(host, all.total(), s_.framework.host_sync_fraction));
      item_split_ready_[key] = 1;
    }
    last_task = add_segment(i, w, vs, mb, -1, all);
  } else {
    const std::vector<int>& units = item_units(vs, first, last, w == Work::kForward);
    // ZeRO-3 on one data-parallel stream. With prefetch d, at most d + 1 units are gathered at
    // once (FSDP's limit_all_gathers): unit j's gather waits until unit j-d-1's compute has
    // freed its parameters, and is queued before the reduce-scatter of unit j-d (d = 1: FSDP's
    // backward prefetch, the next unit's gather ahead of this unit's reduce-scatter). With d = 0
    // each gather waits for the previous unit's compute and reduce-scatter: nothing overlaps.
    const bool gathers = zero3 && w != Work::kBackwardWeight;
    const std::size_t depth = std::size_t(s_.strategy.zero3_prefetch);
    std::vector<int>& gather_ids = gathers_;
    std::vector<int>& segs = segments_;
    gather_ids.clear();
    segs.clear();
    auto issue_gathers = [&](std::size_t upto) {  // gathers of units[0 .. upto]
      while (gathers && gather_ids.size() < units.size() && gather_ids.size() <= upto) {
        const std::size_t j = gather_ids.size();
        gather_ids.push_back(add_zero3_gather(i, units[j]));
        if (j > depth) depend(gather_ids.back(), segs[j - depth - 1]);
      }
    };
    // ZB-H2 under ZeRO-3: a deferred weight pass taken while forwards or backwards remain to be
    // issued ends when its reduce-scatters have drained, not at its last compute (below).
    const StageState& st = stages_[std::size_t(i)];
    const bool drain = zero3 && w == Work::kBackwardWeight && plan_.schedule_facts().greedy &&
                       (st.f_next < m_ * v_ || st.b_next < m_ * v_);
    std::vector<int> scatters;
    // Without overlap (DeepSpeed's overlap_comm false: its stage-3 reduce-scatters run on the
    // default stream, deepspeed/runtime/zero/stage3.py reduce_and_partition_stream) each unit's
    // compute waits for the previous unit's reduce-scatter, and the item ends after its last
    // (the marker below); they still run on the data-parallel stream, whose links the gathers
    // share.
    const bool serial = zero3 && produces_grads(w) && !overlap;
    int previous_rs = -1;
    for (std::size_t k = 0; k < units.size(); ++k) {
      const int u = units[k];
      issue_gathers(k);
      TimeSplit split = pass_split(unit_cost(u).work, w);
      split.add(TimeCategory::kHostDispatch,
                host_exposed(pass_host(unit_cost(u).work, w), split.total(),
                             s_.framework.host_sync_fraction));
      const int seg = add_segment(i, w, vs, mb, u, split);
      segs.push_back(seg);
      if (gathers) depend(seg, gather_ids[k]);
      if (serial && previous_rs >= 0) depend(seg, previous_rs);
      issue_gathers(k + depth);
      if (zero3 && produces_grads(w)) {
        const int rs = add_task(i, StreamKind::kDpGather, Role::kPlain,
                                unit_cost(u).zero3_reduce_seconds, TimeCategory::kDpComm);
        depend(rs, seg);
        if (drain || (serial && k + 1 == units.size())) scatters.push_back(rs);
        previous_rs = rs;
      }
      if (reduce && u >= 0) add_buckets(i, u, seg);
    }
    last_task = last_compute_task(i);
    // The greedy rule starts a deferred weight pass whenever the compute stream idles. Ended at
    // its last compute, a short gap started several, and their reduce-scatters, queued on the
    // one data-parallel stream, held the next forward's or backward's gathers behind them: ZB-H2
    // came out slower than ZB-H1 on 41 of 341 random ZeRO-3 plans (found by review, 2026-11-28;
    // mixtral-8x7b-16xh100 at pp 5, tp 8, 7 micro-batches: 0.818 s against ZB-H1's 0.773 s;
    // cli_simulate.ZbH2UnderZero3DoesNotFloodTheDataParallelStream). A marker on the compute stream
    // closes the item after them, so the next pick sees a ready backward or forward first. Once
    // every forward and backward of the stage is issued, the remaining weight passes run back to
    // back: nothing waits behind their reduce-scatters but the step's end, which waits for all of
    // them anyway.
    if (!scatters.empty()) {
      const int marker = add_segment(i, w, vs, mb, -1, TimeSplit{});
      depend(marker, last_task);
      for (int rs : scatters) depend(marker, rs);
      last_task = marker;
    }
  }
  std::vector<int> reductions;
  if (reduce && !overlap && zero.reduces_every_microbatch) {
    reductions = add_buckets_after_item(i, first, last, last_task);
  } else if (reduce && !overlap) {
    // Megatron's finalize_model_grads: without overlap every bucket reduces after the stage's
    // whole backward, not after its chunk's (interleaved schedules end chunk v - 1 earlier).
    auto& pending = stages_[std::size_t(i)].reduce_pending;
    pending.emplace_back(first, last);
    if (int(pending.size()) == v_) {
      for (const auto& [f, l] : pending) add_buckets_after_item(i, f, l, last_task);
      add_buckets(i, -1, last_task);
    }
  }
  // Parameters outside the blocks (embedding, output) reduce after the stage's final chunk;
  // ZeRO-2's synchronous reduction holds them like the blocks' (until 2026-11-29 it held only
  // the blocks' buckets, so a stage whose parameters all fit one bucket, keyed to its embedding
  // or output, held nothing; found while fixing the closed form's ZeRO-2 without overlap).
  if (reduce && (overlap || zero.reduces_every_microbatch) && vs / p_ == 0) {
    if (overlap) {
      add_buckets(i, -1, last_task);
    } else {
      const std::vector<int> outside = add_buckets_after_item(i, -1, -1, last_task);
      reductions.insert(reductions.end(), outside.begin(), outside.end());
    }
  }
  // Without overlap, ZeRO-2's per-micro-batch reduction is synchronous: the stage's next item
  // waits for it (a marker on the compute stream closes the item).
  if (zero.reduces_every_microbatch && !reductions.empty() && mb < m_ - 1) {
    const int marker = add_segment(i, w, vs, mb, -1, TimeSplit{});
    for (int r : reductions) depend(marker, r);
    last_task = marker;
  }
  tasks_[std::size_t(last_task)].role = Role::kItemEnd;
  start_touched(i);
}

// The buckets completed by `layer`'s backward (-1: those of the embedding/output parameters).
void StepSimulation::add_buckets(int i, int layer, int after) {
  const auto& index = bucket_index_[std::size_t(i)];
  const auto& buckets = c_.stages[std::size_t(i)].buckets;
  // Sorted by (layer, bucket order): a layer's buckets are one run, in bucket order.
  for (auto it = std::lower_bound(index.begin(), index.end(), std::pair<int, int>(layer, -1));
       it != index.end() && it->first == layer; ++it)
    if (last_mb_ || !buckets[std::size_t(it->second)].once_per_step)
      add_bucket(i, buckets[std::size_t(it->second)], after);
}

std::vector<int> StepSimulation::add_buckets_after_item(int i, int first, int last, int after) {
  const auto& index = bucket_index_[std::size_t(i)];
  const auto& buckets = c_.stages[std::size_t(i)].buckets;
  std::vector<int> order;  // the buckets of layers first..last, in bucket (backward) order
  for (auto it = std::lower_bound(index.begin(), index.end(), std::pair<int, int>(first, -1));
       it != index.end() && it->first <= last; ++it)
    if (last_mb_ || !buckets[std::size_t(it->second)].once_per_step) order.push_back(it->second);
  std::sort(order.begin(), order.end());
  std::vector<int> ids;
  for (int b : order) ids.push_back(add_bucket(i, buckets[std::size_t(b)], after));
  return ids;
}

int StepSimulation::add_segment(int i, Work w, int vs, int mb, int layer, const TimeSplit& split) {
  const int t =
      add_task(i, StreamKind::kCompute, Role::kSegment, split.total(), TimeCategory::kCompute);
  Task& task = tasks_[std::size_t(t)];
  task.work = w;
  task.vs = vs;
  task.mb = mb;
  task.layer = layer;
  task.split = split;
  return t;
}

int StepSimulation::add_zero3_gather(int i, int unit) {
  const LayerCost& lc = unit_cost(unit);
  const int gather = add_task(i, StreamKind::kDpGather, Role::kPlain, lc.zero3_gather_seconds,
                              TimeCategory::kDpComm);
  tasks_[std::size_t(gather)].layer = unit;
  if (lc.zero3_h2d_seconds > 0)
    depend(gather, add_task(i, StreamKind::kHost, Role::kPlain, lc.zero3_h2d_seconds,
                            TimeCategory::kOffload));
  return gather;
}

int StepSimulation::add_bucket(int i, const Bucket& b, int after) {
  const int t = add_task(i, StreamKind::kDpReduce, Role::kPlain, b.seconds, TimeCategory::kDpComm);
  tasks_[std::size_t(t)].layer = b.trigger_layer;
  if (after >= 0) depend(t, after);
  return t;
}

int StepSimulation::add_task(int i, StreamKind k, Role role, double duration, TimeCategory cat) {
  Task t;
  t.stage = i;
  t.stream = k;
  t.role = role;
  t.duration = duration;
  t.category = cat;
  t.release = k == StreamKind::kCompute ? pick_release_[std::size_t(i)] : -1;
  if (k != StreamKind::kCompute) t.split.add(cat, duration);
  tasks_.push_back(std::move(t));
  const int id = int(tasks_.size()) - 1;
  stages_[std::size_t(i)].streams[std::size_t(k)].queue.push_back(id);
  touched_ |= 1u << unsigned(k);
  return id;
}

// `task` waits for `dep` unless dep already finished.
void StepSimulation::depend(int task, int dep) {
  Task& d = tasks_[std::size_t(dep)];
  if (d.end >= 0) return;
  d.dependents.push_back(task);
  ++tasks_[std::size_t(task)].pending;
}

// ---- the end of a stage's step: gradient reduction, optimizer, offload ------------------
void StepSimulation::finalize(int i) {
  touched_ = 0;
  StageState& st = stages_[std::size_t(i)];
  st.finalized = true;
  const StageCost& sc = c_.stages[std::size_t(i)];
  // The data-parallel streams run in order: markers behind them wait for all their work.
  const int reduced = add_task(i, StreamKind::kDpReduce, Role::kPlain, 0, TimeCategory::kDpComm);
  const int gathered = add_task(i, StreamKind::kDpGather, Role::kPlain, 0, TimeCategory::kDpComm);
  depend(gathered, reduced);
  int ready = gathered;
  if (s_.strategy.offload_optimizer) {
    ready = chain(i, StreamKind::kHost, sc.offload_d2h_seconds, TimeCategory::kOffload, ready);
    ready = chain(i, StreamKind::kHost, sc.host_optimizer_seconds, TimeCategory::kOptimizer, ready);
    ready = chain(i, StreamKind::kHost, sc.offload_h2d_seconds, TimeCategory::kOffload, ready);
  } else {
    ready = chain(i, StreamKind::kCompute, sc.optimizer_seconds, TimeCategory::kOptimizer, ready);
  }
  // ZeRO-1/2 all-gather the updated parameters; overlapped, it hides behind the next step's
  // first forward pass (Megatron's --overlap-param-gather), so only what exceeds that is
  // exposed at the end of this step, plus the slowdown it causes that forward (contention.h).
  const double gather =
      s_.strategy.overlap_param_gather
          ? std::max(0.0, sc.param_gather_seconds - sc.forward_seconds) +
                contention_seconds(sc.forward_seconds, sc.param_gather_seconds, c_.overlap_slowdown)
          : sc.param_gather_seconds;
  if (gather > 0) ready = chain(i, StreamKind::kDpGather, gather, TimeCategory::kDpComm, ready);
  // The framework's per-step host work (optimizer launches, synchronising reads of the loss and
  // gradient norm) that the GPU waits for.
  if (c_.step_host_seconds > 0)
    ready =
        chain(i, StreamKind::kCompute, c_.step_host_seconds, TimeCategory::kHostDispatch, ready);
  const int end = add_task(i, StreamKind::kCompute, Role::kStageEnd, 0, TimeCategory::kBubble);
  depend(end, ready);
  start_touched(i);
}

int StepSimulation::chain(int i, StreamKind k, double seconds, TimeCategory cat, int after) {
  const int t = add_task(i, k, Role::kPlain, seconds, cat);
  if (k == StreamKind::kCompute) tasks_[std::size_t(t)].split.add(cat, seconds);
  depend(t, after);
  return t;
}
// Only streams that received a task since touched_ was cleared can start one now (an untouched
// stream's try_start is a no-op); they are tried in stream order, as trying all of them would.
void StepSimulation::start_touched(int i) {
  for (int k = 0; k < kStreamKinds; ++k)
    if (touched_ & (1u << unsigned(k))) try_start(i, StreamKind(k));
  touched_ = 0;
}

}  // namespace shardsim::des_internal
