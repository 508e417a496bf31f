#include "simulator/des/step_sim.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <deque>

#include "simulator/core/diagnostics.h"
#include "simulator/des/event_queue.h"
#include "simulator/plan/schedule.h"

namespace shardsim {
namespace {

using Work = Pass;  // the three kinds of pipeline work (plan/schedule.h)
// What a task's completion means to the scheduler.
enum class Role : std::uint8_t { kSegment, kItemEnd, kSend, kPlain, kStageEnd };

struct Task {
  int stage = 0;
  StreamKind stream = StreamKind::kCompute;
  Role role = Role::kPlain;
  Work work = Work::kForward;
  int vs = 0, mb = 0, layer = -1;  // virtual stage, micro-batch, layer (-1: whole item)
  double duration = 0;
  TimeSplit split;  // compute-stream tasks: what the duration was spent on
  TimeCategory category = TimeCategory::kCompute;
  int pending = 0;   // unfinished dependencies
  int release = -1;  // the dependency that finished last
  std::vector<int> dependents;
  double start = -1, end = -1;
};

struct StreamState {
  std::deque<int> queue;
  std::vector<int> history;  // started tasks, in order (gap attribution, trace)
  bool busy = false;
  double idle_since = 0;
};

struct StageState {
  std::array<StreamState, kStreamKinds> streams;
  int f_next = 0, b_next = 0;  // next positions in the forward / backward orders
  // Forwards whose backward (input gradient) has not run, and the schedule's limit on them;
  // forwards whose weight gradient has not run (the activations still held).
  int in_flight = 0, limit = 1, holding = 0;
  std::deque<std::pair<int, int>> weight_pending;  // ZB: (vs, mb) whose weight grads are due
  bool item_running = false;
  bool finalized = false;
  bool ended = false;
  double end = 0;
  double first_start = -1;  // start of the stage's first compute task
  TimeSplit split;
  std::vector<ProgramItem> program;  // fixed-order schedules: the stage's work items, in order
  std::size_t pc = 0;                // next program item
};

class StepSimulation {
 public:
  StepSimulation(const Scenario& s, const Plan& plan, const StepCosts& c, const SimOptions& o)
      : s_(s), plan_(plan), c_(c), opt_(o), p_(plan.pp), v_(plan.vpp), m_(int(plan.micro_batches)) {
    V_ = p_ * v_;
    zb_ = plan.schedule_facts().split_weight_grad;
    stages_.resize(std::size_t(p_));
    pick_release_.assign(std::size_t(p_), -1);
    for (int i = 0; i < p_; ++i) stages_[std::size_t(i)].limit = limit(i);
    hold_cap_ = int(in_flight_chunks(plan.schedule, 0, p_, v_, plan.micro_batches));
    const std::size_t n = std::size_t(V_) * std::size_t(m_);
    f_in_.assign(n, 0);
    b_in_.assign(n, 0);
    f_done_.assign(n, 0);
    tasks_.reserve(n * 4 + 64);
    q_.reserve(std::size_t(p_) * 8 + 64);
  }

  StepResult run() {
    for (int i = 0; i < p_; ++i) pick(i);
    while (!q_.empty()) {
      const EventQueue::Event e = q_.pop();
      if (e.klass == kPickEvent)
        pick(e.id);
      else
        complete(e.id);
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

 private:
  // ---- schedule rules -------------------------------------------------------------------
  // ZB-H2's greedy rule: at most 2(p - i) - 1 forwards ahead of their backward-input pass, and
  // (hold_cap_) no stage holding more micro-batches until their weight pass than 2p - 1.
  int limit(int i) const { return int(greedy_forward_limit(i, p_, v_, plan_.micro_batches)); }

  // (virtual stage, micro-batch) of an order position; the size guard keeps them within int.
  std::pair<int, int> position(int i, std::int64_t k, bool backward) const {
    const auto [vs, mb] = order_position(i, k, backward, p_, v_);
    return {vs, int(mb)};
  }

  std::size_t idx(int vs, int mb) const {
    return std::size_t(vs) * std::size_t(m_) + std::size_t(mb);
  }

  // Scheduling decisions wait until every completion of the current instant has been processed
  // (a transfer arriving at the same time as a stage frees up is seen by that stage).
  void request_pick(int i) { q_.push(q_.now(), i, kPickEvent); }

  void pick(int i) {
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
  void run_program(int i) {
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

  bool try_forward(int i) {
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

  bool try_backward(int i) {
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
  TimeSplit pass_split(const WorkCost& wc, Work w) const {
    if (w == Work::kForward) return wc.fwd;
    if (w == Work::kBackwardWeight) return wc.bwd_weight;
    TimeSplit t = wc.bwd_input;
    if (!zb_) t += wc.bwd_weight;
    return t;
  }

  bool produces_grads(Work w) const {
    return zb_ ? w == Work::kBackwardWeight : w == Work::kBackwardInput;
  }

  // The units of one work item in execution order: the chunk's blocks (reversed in backward),
  // with the embedding before them in forward on the first virtual stage and the output layer
  // after them; -1 stands for the embedding, -2 for the output layer.
  std::vector<int> item_units(int vs, int first, int last, bool forward) const {
    std::vector<int> units;
    if (forward && vs == 0) units.push_back(-1);
    if (!forward && vs == V_ - 1) units.push_back(-2);
    for (int k = 0; k <= last - first; ++k) units.push_back(forward ? first + k : last - k);
    if (forward && vs == V_ - 1) units.push_back(-2);
    if (!forward && vs == 0) units.push_back(-1);
    return units;
  }

  const LayerCost& unit_cost(int unit) const {
    if (unit == -1) return c_.embedding;
    if (unit == -2) return c_.output;
    return c_.layers[std::size_t(unit)];
  }

  void start_item(int i, Work w, int vs, int mb) {
    stages_[std::size_t(i)].item_running = true;
    const StageChunk& chunk = plan_.stages[std::size_t(i)].chunks[std::size_t(vs / p_)];
    const int first = chunk.first_layer, last = chunk.first_layer + chunk.layers - 1;
    const ZeroTraits& zero = s_.strategy.zero_facts();
    const bool zero3 = zero.gathers_params_per_layer;
    // Gradient buckets are reduced after the last micro-batch's backward (ZeRO-2: after every
    // micro-batch's, since its gradients are sharded), layer by layer when overlapped.
    const bool reduce = produces_grads(w) && (mb == m_ - 1 || zero.reduces_every_microbatch);
    const bool overlap = s_.strategy.overlap_grad_reduce;
    const auto units = item_units(vs, first, last, w == Work::kForward);
    const bool per_unit = zero3 || (reduce && overlap);
    int last_task = -1;
    if (!per_unit) {
      TimeSplit all;
      for (int u : units) all += pass_split(unit_cost(u).work, w);
      last_task = add_segment(i, w, vs, mb, -1, all);
    } else {
      // ZeRO-3 on one data-parallel stream: unit k+1's gather is queued before unit k's
      // reduce-scatter, so it prefetches one unit ahead (FSDP's backward prefetch).
      const bool gathers = zero3 && w != Work::kBackwardWeight;
      int next_gather = gathers ? add_zero3_gather(i, units.front()) : -1;
      for (std::size_t k = 0; k < units.size(); ++k) {
        const int u = units[k];
        const int seg = add_segment(i, w, vs, mb, u, pass_split(unit_cost(u).work, w));
        if (next_gather >= 0) depend(seg, next_gather);
        next_gather = gathers && k + 1 < units.size() ? add_zero3_gather(i, units[k + 1]) : -1;
        if (zero3 && produces_grads(w))
          depend(add_task(i, StreamKind::kDpGather, Role::kPlain, unit_cost(u).zero3_reduce_seconds,
                          TimeCategory::kDpComm),
                 seg);
        if (reduce && u >= 0) add_buckets(i, u, seg);
      }
      last_task = last_compute_task(i);
    }
    std::vector<int> reductions;
    if (reduce && !overlap) reductions = add_buckets_after_item(i, first, last, last_task);
    // Parameters outside the blocks (embedding, output) reduce after the stage's final chunk.
    if (reduce && vs / p_ == 0) add_buckets(i, -1, last_task);
    // Without overlap, ZeRO-2's per-micro-batch reduction is synchronous: the stage's next item
    // waits for it (a marker on the compute stream closes the item).
    if (zero.reduces_every_microbatch && !reductions.empty() && mb < m_ - 1) {
      const int marker = add_segment(i, w, vs, mb, -1, TimeSplit{});
      for (int r : reductions) depend(marker, r);
      last_task = marker;
    }
    tasks_[std::size_t(last_task)].role = Role::kItemEnd;
    for (int k = 0; k < kStreamKinds; ++k) try_start(i, StreamKind(k));
  }

  int last_compute_task(int i) const {
    return stages_[std::size_t(i)].streams[std::size_t(StreamKind::kCompute)].queue.back();
  }

  // The buckets completed by `layer`'s backward (-1: those of the embedding/output parameters).
  void add_buckets(int i, int layer, int after) {
    for (const auto& b : c_.stages[std::size_t(i)].buckets)
      if (b.trigger_layer == layer) add_bucket(i, b, after);
  }

  std::vector<int> add_buckets_after_item(int i, int first, int last, int after) {
    std::vector<int> ids;
    for (const auto& b : c_.stages[std::size_t(i)].buckets)
      if (b.trigger_layer >= first && b.trigger_layer <= last)
        ids.push_back(add_bucket(i, b, after));
    return ids;
  }

  int add_segment(int i, Work w, int vs, int mb, int layer, const TimeSplit& split) {
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

  int add_zero3_gather(int i, int unit) {
    const LayerCost& lc = unit_cost(unit);
    const int gather = add_task(i, StreamKind::kDpGather, Role::kPlain, lc.zero3_gather_seconds,
                                TimeCategory::kDpComm);
    tasks_[std::size_t(gather)].layer = unit;
    if (lc.zero3_h2d_seconds > 0)
      depend(gather, add_task(i, StreamKind::kHost, Role::kPlain, lc.zero3_h2d_seconds,
                              TimeCategory::kOffload));
    return gather;
  }

  int add_bucket(int i, const Bucket& b, int after) {
    const int t =
        add_task(i, StreamKind::kDpReduce, Role::kPlain, b.seconds, TimeCategory::kDpComm);
    tasks_[std::size_t(t)].layer = b.trigger_layer;
    if (after >= 0) depend(t, after);
    return t;
  }

  int add_task(int i, StreamKind k, Role role, double duration, TimeCategory cat) {
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
    return id;
  }

  // `task` waits for `dep` unless dep already finished.
  void depend(int task, int dep) {
    Task& d = tasks_[std::size_t(dep)];
    if (d.end >= 0) return;
    d.dependents.push_back(task);
    ++tasks_[std::size_t(task)].pending;
  }

  // ---- the end of a stage's step: gradient reduction, optimizer, offload ------------------
  void finalize(int i) {
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
      ready =
          chain(i, StreamKind::kHost, sc.host_optimizer_seconds, TimeCategory::kOptimizer, ready);
      ready = chain(i, StreamKind::kHost, sc.offload_h2d_seconds, TimeCategory::kOffload, ready);
    } else {
      ready = chain(i, StreamKind::kCompute, sc.optimizer_seconds, TimeCategory::kOptimizer, ready);
    }
    // ZeRO-1/2 all-gather the updated parameters; overlapped, it hides behind the next step's
    // first forward pass (Megatron's --overlap-param-gather), so only what exceeds that is
    // exposed at the end of this step.
    const double gather = s_.strategy.overlap_param_gather
                              ? std::max(0.0, sc.param_gather_seconds - sc.forward_seconds)
                              : sc.param_gather_seconds;
    if (gather > 0) ready = chain(i, StreamKind::kDpGather, gather, TimeCategory::kDpComm, ready);
    const int end = add_task(i, StreamKind::kCompute, Role::kStageEnd, 0, TimeCategory::kBubble);
    depend(end, ready);
    for (int k = 0; k < kStreamKinds; ++k) try_start(i, StreamKind(k));
  }

  int chain(int i, StreamKind k, double seconds, TimeCategory cat, int after) {
    const int t = add_task(i, k, Role::kPlain, seconds, cat);
    if (k == StreamKind::kCompute) tasks_[std::size_t(t)].split.add(cat, seconds);
    depend(t, after);
    return t;
  }

  // ---- execution --------------------------------------------------------------------------
  void try_start(int i, StreamKind k) {
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
    q_.push(now + t.duration, id);
  }

  void complete(int id) {
    Task& t = tasks_[std::size_t(id)];
    t.end = q_.now();
    const int i = t.stage;
    StageState& st = stages_[std::size_t(i)];
    StreamState& ss = st.streams[std::size_t(t.stream)];
    ss.busy = false;
    ss.idle_since = t.end;
    if (t.stream == StreamKind::kCompute) st.split += t.split;
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

  void finish_item(int i, Work work, int vs, int mb) {
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

  void send(int i, Work work, int vs, int mb, StreamKind k) {
    const int id = add_task(i, k, Role::kSend, c_.p2p_seconds, TimeCategory::kPpComm);
    Task& t = tasks_[std::size_t(id)];
    t.work = work;
    t.vs = vs;
    t.mb = mb;
    try_start(i, k);
  }

  // Transfer `id` arrived: the neighbouring virtual stage may now run; what it starts now was
  // released by this transfer (for gap attribution).
  void deliver(int id, StreamKind stream, int vs, int mb) {
    const bool forward = stream == StreamKind::kPpForward;
    const int to_vs = forward ? vs + 1 : vs - 1;
    (forward ? f_in_ : b_in_)[idx(to_vs, mb)] = 1;
    pick_release_[std::size_t(to_vs % p_)] = id;
    request_pick(to_vs % p_);
  }

  // The compute stream of stage i idled over [a, b): charge it to what it waited for.
  void attribute_gap(int i, double a, double b, int release) {
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
    split.add(TimeCategory::kBubble, (b - a) - covered);
  }

  // Charges the part of [a, b) during which the data-parallel or host streams of stage i were
  // busy to their tasks' categories (each instant once, to the earliest-started task covering it).
  double charge_side_streams(int i, double a, double b, TimeSplit& split) {
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
    std::sort(spans.begin(), spans.end(),
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
  StepResult result() const {
    StepResult r;
    r.tasks = tasks_.size();
    for (int i = 0; i < p_; ++i) {
      const StageState& st = stages_[std::size_t(i)];
      r.stage_end_seconds.push_back(st.end);
      r.stage_breakdowns.push_back(st.split);
      const double span = plan_.schedule_facts().overlapping_steps
                              ? st.end - std::max(0.0, st.first_start)
                              : st.end;
      if (span > r.step_seconds) {
        r.step_seconds = span;
        r.critical_stage = i;
      }
    }
    r.breakdown = r.stage_breakdowns.empty() ? TimeSplit{}
                                             : r.stage_breakdowns[std::size_t(r.critical_stage)];
    if (opt_.trace) r.trace = trace();
    return r;
  }

  std::string task_name(const Task& t) const {
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

  std::vector<TraceSlice> trace() const {
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

  const Scenario& s_;
  const Plan& plan_;
  const StepCosts& c_;
  SimOptions opt_;
  int p_, v_, m_, V_ = 1;
  bool zb_ = false;
  // Zero-bubble schedules defer weight gradients; no stage may then hold more micro-batches
  // than the schedule's first stage (Qi et al.: ZB-H1 peaks at 1F1B's p, ZB-H2 at about 2p).
  int hold_cap_ = 1;
  std::vector<Task> tasks_;
  std::vector<StageState> stages_;
  std::vector<std::uint8_t> f_in_, b_in_, f_done_;
  // Per stage: the latest arrival, which releases the work it enables (gap attribution).
  std::vector<int> pick_release_;
  static constexpr int kPickEvent = 1;
  EventQueue q_;
};

}  // namespace

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

StepResult simulate_step(const Scenario& s, const Plan& plan, const StepCosts& costs,
                         const SimOptions& options) {
  // Tasks: every forward, backward (and ZB weight) item with its pipeline send; under ZeRO-3 one
  // segment, one gather and one reduce-scatter per block of the item.
  const double items = double(plan.pp) * plan.vpp * double(plan.micro_batches) *
                       (plan.schedule_facts().split_weight_grad ? 3 : 2);
  const double blocks = double(s.model.layers) / (double(plan.pp) * plan.vpp) + 2;
  const ZeroTraits& zero = s.strategy.zero_facts();
  const bool per_block = zero.gathers_params_per_layer ||
                         (zero.reduces_every_microbatch && s.strategy.overlap_grad_reduce);
  const double tasks = items * (per_block ? 3 * blocks : 2);
  if (tasks > kMaxTasks)
    throw InputError("/training/global_batch",
                     fmt::format("the event simulation would run about {:.3g} tasks ({:.3g} "
                                 "pipeline work items), above its limit of {:.0e}; use --mode "
                                 "analytic for this size",
                                 tasks, items, kMaxTasks));
  return StepSimulation(s, plan, costs, options).run();
}

}  // namespace shardsim
