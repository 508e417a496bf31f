#include "simulator/des/step_sim.h"

#include <fmt/format.h>
#include <algorithm>

#include "simulator/core/diagnostics.h"
#include "simulator/des/step_simulation.h"

namespace shardsim::des_internal {

StepSimulation::StepSimulation(const Scenario& s, const Plan& plan, const StepCosts& c,
                               const SimOptions& o)
    : s_(s), plan_(plan), c_(c), opt_(o), p_(plan.pp), v_(plan.vpp), m_(int(plan.micro_batches)) {
  V_ = p_ * v_;
  zb_ = plan.schedule_facts().split_weight_grad;
  stages_.resize(std::size_t(p_));
  pick_release_.assign(std::size_t(p_), -1);
  for (int i = 0; i < p_; ++i) stages_[std::size_t(i)].limit = limit(i);
  item_split_.resize(std::size_t(p_) * std::size_t(v_) * 3);
  item_split_ready_.assign(item_split_.size(), 0);
  bucket_index_.resize(std::size_t(p_));
  for (int i = 0; i < p_; ++i) {
    const auto& buckets = c_.stages[std::size_t(i)].buckets;
    auto& index = bucket_index_[std::size_t(i)];
    for (std::size_t b = 0; b < buckets.size(); ++b)
      index.emplace_back(buckets[b].trigger_layer, int(b));
    std::sort(index.begin(), index.end());
  }
  hold_cap_ = int(in_flight_chunks(plan.schedule, 0, p_, v_, plan.micro_batches));
  const std::size_t n = std::size_t(V_) * std::size_t(m_);
  f_in_.assign(n, 0);
  b_in_.assign(n, 0);
  f_done_.assign(n, 0);
  tasks_.reserve(n * 4 + 64);
  q_.reserve(std::size_t(p_) * 8 + 64);
}

StepResult StepSimulation::run() {
  for (int i = 0; i < p_; ++i) pick(i);
  while (!q_.empty()) {
    const EventQueue::Event e = q_.pop();
    if (e.klass() == kPickEvent) {
      pick(e.id);
    } else {
      const Task& t = tasks_[std::size_t(e.id)];
      if (t.end < 0 && e.time == t.due) complete(e.id);  // else: rescheduled, stale
    }
  }
  // Every stage must have reached its step end; anything else is a scheduling bug, reported
  // as such rather than as a step time.
  for (int i = 0; i < p_; ++i)
    if (!stages_[std::size_t(i)].finalized || !stages_[std::size_t(i)].ended)
      throw std::logic_error(
          fmt::format("internal error: pipeline stage {} never finished its "
                      "step (schedule {})",
                      i, schedule_name(plan_.schedule)));
  return result();
}

// ---- execution --------------------------------------------------------------------------
void StepSimulation::try_start(int i, StreamKind k) {
  StreamState& ss = stages_[std::size_t(i)].streams[std::size_t(k)];
  if (ss.busy || ss.queue.empty()) return;
  const int id = ss.queue.front();
  Task& t = tasks_[std::size_t(id)];
  if (t.pending > 0) return;
  ss.queue.pop_front();
  ss.busy = true;
  const double now = q_.now();
  StageState& st = stages_[std::size_t(i)];
  // ZB-H2 steps overlap back to back (Qi et al.'s optimizer post-validation removes the
  // step-boundary synchronisation), so a stage's step is its span from its first task: the
  // pipeline-fill wait before it belongs to the previous step's tail.
  const bool leading = st.first_start < 0 && plan_.schedule_facts().overlapping_steps;
  if (k == StreamKind::kCompute && st.first_start < 0) st.first_start = now;
  if (k == StreamKind::kCompute && now > ss.idle_since && !leading)
    attribute_gap(i, ss.idle_since, now, t.release);
  t.start = now;
  ss.history.push_back(id);
  if (k == StreamKind::kCompute) {
    st.compute_running = id;
    t.work_left = t.duration;
    t.rate_since = now;
    t.slowed = c_.overlap_slowdown > 0 && st.collectives_running > 0;
    t.due = now + t.duration * (t.slowed ? 1 + c_.overlap_slowdown : 1);
  } else {
    t.due = now + t.duration;
    if (contends(k, t) && st.collectives_running++ == 0) retime_compute(i);
  }
  q_.push(t.due, id);
}

void StepSimulation::retime_compute(int i) {
  StageState& st = stages_[std::size_t(i)];
  if (st.compute_running < 0) return;
  Task& t = tasks_[std::size_t(st.compute_running)];
  const double now = q_.now(), elapsed = now - t.rate_since;
  const double f = 1 + c_.overlap_slowdown;
  if (t.slowed) {
    // Over `elapsed` the task did elapsed / f of its work; the rest of the time was contention,
    // charged to the data-parallel communication that caused it.
    t.split.add(TimeCategory::kDpComm, elapsed - elapsed / f);
    t.work_left -= elapsed / f;
  } else {
    t.work_left -= elapsed;
  }
  t.work_left = std::max(0.0, t.work_left);
  t.rate_since = now;
  t.slowed = st.collectives_running > 0;
  t.due = now + t.work_left * (t.slowed ? f : 1);
  q_.push(t.due, st.compute_running);
}

void StepSimulation::complete(int id) {
  Task& t = tasks_[std::size_t(id)];
  t.end = q_.now();
  const int i = t.stage;
  StageState& st = stages_[std::size_t(i)];
  StreamState& ss = st.streams[std::size_t(t.stream)];
  ss.busy = false;
  ss.idle_since = t.end;
  if (t.stream == StreamKind::kCompute) {
    if (t.slowed) {  // the contention since the last change of speed
      const double elapsed = t.end - t.rate_since;
      t.split.add(TimeCategory::kDpComm, elapsed - elapsed / (1 + c_.overlap_slowdown));
    }
    st.compute_running = -1;
    st.split += t.split;
  } else if (contends(t.stream, t) && --st.collectives_running == 0) {
    retime_compute(i);
  }
  for (int d : t.dependents) {
    Task& dt = tasks_[std::size_t(d)];
    dt.release = id;
    if (--dt.pending == 0) try_start(dt.stage, dt.stream);
  }
  // Copies: the handlers below add tasks, which may move tasks_.
  const Role role = t.role;
  const Work work = t.work;
  const StreamKind stream = t.stream;
  const int vs = t.vs, mb = t.mb;
  if (role == Role::kItemEnd) finish_item(i, work, vs, mb);
  if (role == Role::kSend) deliver(id, stream, vs, mb);
  if (role == Role::kStageEnd) {
    st.end = q_.now();
    st.ended = true;
  }
  try_start(i, stream);
}

void StepSimulation::finish_item(int i, Work work, int vs, int mb) {
  StageState& st = stages_[std::size_t(i)];
  st.item_running = false;
  if (work == Work::kForward) {
    f_done_[idx(vs, mb)] = 1;
    if (vs < V_ - 1) send(i, work, vs, mb, StreamKind::kPpForward);
  } else if (work == Work::kBackwardInput) {
    if (vs > 0) send(i, work, vs, mb, StreamKind::kPpBackward);
    --st.in_flight;
    if (zb_)
      st.weight_pending.emplace_back(vs, mb);
    else
      --st.holding;
  } else {
    --st.holding;
  }
  request_pick(i);
}

void StepSimulation::send(int i, Work work, int vs, int mb, StreamKind k) {
  const int id = add_task(i, k, Role::kSend, c_.p2p_seconds, TimeCategory::kPpComm);
  Task& t = tasks_[std::size_t(id)];
  t.work = work;
  t.vs = vs;
  t.mb = mb;
  try_start(i, k);
}

// Transfer `id` arrived: the neighbouring virtual stage may now run; what it starts now was
// released by this transfer (for gap attribution).
void StepSimulation::deliver(int id, StreamKind stream, int vs, int mb) {
  const bool forward = stream == StreamKind::kPpForward;
  const int to_vs = forward ? vs + 1 : vs - 1;
  (forward ? f_in_ : b_in_)[idx(to_vs, mb)] = 1;
  pick_release_[std::size_t(to_vs % p_)] = id;
  request_pick(to_vs % p_);
}

// The compute stream of stage i idled over [a, b): charge it to what it waited for.
void StepSimulation::attribute_gap(int i, double a, double b, int release) {
  TimeSplit& split = stages_[std::size_t(i)].split;
  double covered = 0;
  if (release >= 0) {
    const Task& r = tasks_[std::size_t(release)];
    if (r.stream == StreamKind::kPpForward || r.stream == StreamKind::kPpBackward) {
      covered = std::max(0.0, std::min(b, r.end) - std::max(a, r.start));
      split.add(TimeCategory::kPpComm, covered);
    } else if (r.stream != StreamKind::kCompute) {
      covered = charge_side_streams(i, a, b, split);
    }
  }
  split.add(TimeCategory::kBubble, std::max(0.0, (b - a) - covered));  // rounding: never < 0
}

// Charges the part of [a, b) during which the data-parallel or host streams of stage i were
// busy to their tasks' categories, each instant once: the tasks in the order of their starts
// clipped to a (so what already runs at a comes first), on a tie the gather stream's, then the
// reduce stream's, then the host's, each task taking what is left up to its end. (The analytic
// model's ZeRO-3 items apply the same rule, pipeline_paths.cc zero3_item_exposed; the sort is
// stable so the tie order is the rule's, not the library's.)
double StepSimulation::charge_side_streams(int i, double a, double b, TimeSplit& split) {
  struct Span {
    double start, end;
    TimeCategory cat;
  };
  std::vector<Span> spans;
  for (StreamKind k : {StreamKind::kDpGather, StreamKind::kDpReduce, StreamKind::kHost}) {
    const auto& hist = stages_[std::size_t(i)].streams[std::size_t(k)].history;
    for (auto it = hist.rbegin(); it != hist.rend(); ++it) {
      const Task& t = tasks_[std::size_t(*it)];
      const double end = t.end < 0 ? b : t.end;
      if (end <= a) break;
      if (t.start < b && end > t.start)
        spans.push_back({std::max(a, t.start), std::min(b, end), t.category});
    }
  }
  std::stable_sort(spans.begin(), spans.end(),
                   [](const Span& x, const Span& y) { return x.start < y.start; });
  double cursor = a, covered = 0;
  for (const auto& sp : spans) {
    const double from = std::max(cursor, sp.start);
    if (sp.end <= from) continue;
    split.add(sp.cat, sp.end - from);
    covered += sp.end - from;
    cursor = sp.end;
  }
  return covered;
}

// ---- results ------------------------------------------------------------------------------
StepResult StepSimulation::result() const {
  StepResult r;
  r.tasks = tasks_.size();
  for (int i = 0; i < p_; ++i) {
    const StageState& st = stages_[std::size_t(i)];
    r.stage_end_seconds.push_back(st.end);
    r.stage_breakdowns.push_back(st.split);
    const double span =
        plan_.schedule_facts().overlapping_steps ? st.end - std::max(0.0, st.first_start) : st.end;
    if (span > r.step_seconds) {
      r.step_seconds = span;
      r.critical_stage = i;
    }
  }
  r.breakdown =
      r.stage_breakdowns.empty() ? TimeSplit{} : r.stage_breakdowns[std::size_t(r.critical_stage)];
  if (opt_.trace) r.trace = trace();
  return r;
}

std::string StepSimulation::task_name(const Task& t) const {
  static constexpr const char* kWork[] = {"F", "B", "W"};
  if (t.role == Role::kSegment || t.role == Role::kItemEnd) {
    std::string n = fmt::format("{} mb{} chunk{}", kWork[int(t.work)], t.mb, t.vs / p_);
    if (t.layer >= 0) n += fmt::format(" layer{}", t.layer);
    return n;
  }
  if (t.role == Role::kSend) return fmt::format("send {} mb{}", kWork[int(t.work)], t.mb);
  if (t.role == Role::kStageEnd) return "step end";
  return time_category_key(t.category) + (t.layer >= 0 ? fmt::format(" layer{}", t.layer) : "");
}

std::vector<TraceSlice> StepSimulation::trace() const {
  std::vector<TraceSlice> out;
  for (const auto& t : tasks_) {
    if (t.start < 0 || t.duration <= 0) continue;
    const bool compute = t.stream == StreamKind::kCompute;
    std::string cat = time_category_key(t.category);
    if (compute && t.role != Role::kPlain) cat = "compute";
    out.push_back({t.stage, t.stream, t.start, t.end, task_name(t), cat});
  }
  return out;
}

}  // namespace shardsim::des_internal

namespace shardsim {

std::string stream_name(StreamKind k) {
  switch (k) {
    case StreamKind::kCompute:
      return "compute";
    case StreamKind::kPpForward:
      return "pp send (forward)";
    case StreamKind::kPpBackward:
      return "pp send (backward)";
    case StreamKind::kDpGather:
      return "dp gather";
    case StreamKind::kDpReduce:
      return "dp reduce";
    case StreamKind::kHost:
      return "host copies";
  }
  return "compute";
}

double estimated_tasks(const Scenario& s, const Plan& plan) {
  // Tasks the simulation will create (start_item): an item that is one segment adds one compute
  // task and its pipeline send; an item costed block by block (every item under ZeRO-3; backward
  // items whose gradient buckets reduce as their layers finish, i.e. overlapped reduction: every
  // micro-batch under ZeRO-2, the last one otherwise) adds per block a segment plus, under
  // ZeRO-3, a gather and a reduce-scatter, or a gradient bucket. Non-overlapped reductions add
  // the stage's buckets (at most one per block) once per reducing micro-batch. Counted before
  // anything is allocated; the per-layer sums of one-segment items are shared by all their
  // micro-batches, so this count bounds the work too.
  const double works = plan.schedule_facts().split_weight_grad ? 3 : 2;
  const double chunks = double(plan.pp) * plan.vpp;
  const double mb = double(plan.micro_batches);
  const double blocks = double(s.model.layers) / chunks + 2;
  const ZeroTraits& zero = s.strategy.zero_facts();
  const bool overlap = s.strategy.overlap_grad_reduce;
  const double reducing_mb = zero.reduces_every_microbatch ? mb : 1;  // per chunk
  double per_block_items = 0, per_block_tasks = 0;
  if (zero.gathers_params_per_layer) {
    per_block_items = chunks * mb * works;
    per_block_tasks = 3;
  } else if (overlap) {
    per_block_items = chunks * reducing_mb;
    per_block_tasks = 2;
  }
  const double items = chunks * mb * works;
  const double buckets = overlap ? 0 : chunks * reducing_mb * blocks;
  return (items - per_block_items) * 2 + per_block_items * per_block_tasks * blocks + buckets;
}

Diagnostics check_simulation_size(const Scenario& s, const Plan& plan) {
  const double tasks = estimated_tasks(s, plan);
  const double items = double(plan.pp) * plan.vpp * double(plan.micro_batches) *
                       (plan.schedule_facts().split_weight_grad ? 3 : 2);
  // The field to change: layers when the block-by-block tasks dominate (an item costed whole is
  // about 2 tasks), else the micro-batches.
  const bool by_layers = tasks > 4 * items;
  Diagnostics d;
  if (tasks > kMaxTasks)
    d.error(by_layers ? "/model/layers" : "/training/global_batch",
            fmt::format("the event simulation would run about {:.3g} tasks ({:.3g} pipeline work "
                        "items over {:.3g} layers), above its limit of {:.0e}; use --mode "
                        "analytic for this size, or fewer micro-batches (training.global_batch, "
                        "training.micro_batch) or layers",
                        tasks, items, double(s.model.layers), kMaxTasks));
  return d;
}

StepResult simulate_step(const Scenario& s, const Plan& plan, const StepCosts& costs,
                         const SimOptions& options) {
  check_simulation_size(s, plan).throw_if_any();
  return des_internal::StepSimulation(s, plan, costs, options).run();
}

}  // namespace shardsim
