// The discrete-event simulation of one step (step_sim.h), as a class: its task graph, stream
// state and schedule rules. Internal to simulator/des: step_program.cc builds the work items a
// schedule asks for, step_sim.cc executes them and reads the results.
#pragma once

#include <array>
#include <deque>
#include <utility>
#include <vector>

#include "simulator/des/event_queue.h"
#include "simulator/des/step_sim.h"
#include "simulator/plan/schedule.h"

namespace shardsim::des_internal {

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
  // Compute tasks under contention (cost/contention.h): work left at full speed as of
  // `rate_since`, whether a collective slows it now, and the completion time last scheduled
  // (an event at any other time is stale).
  double work_left = 0, rate_since = 0, due = -1;
  bool slowed = false;
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
  // Non-overlapped reduction (not ZeRO-2): the (first, last) layers of the chunks whose last
  // gradients are done; the buckets of all of them reduce after the stage's final one.
  std::vector<std::pair<int, int>> reduce_pending;
  bool item_running = false;
  int collectives_running = 0;  // data-parallel collectives in flight (they slow compute)
  int compute_running = -1;     // the compute stream's task in flight, or -1
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
  StepSimulation(const Scenario& s, const Plan& plan, const StepCosts& c, const SimOptions& o);

  StepResult run();

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

  void pick(int i);

  // ---- fixed programs (plan/schedule.h): GPipe, 1F1B, interleaved and ZB-H1 -----------------
  void run_program(int i);

  bool try_forward(int i);

  bool try_backward(int i);

  // ---- building work items ----------------------------------------------------------------
  // One unit's time in pass w (non-ZB schedules run the weight gradient inside B).
  TimeSplit pass_split(const WorkCost& wc, Work w) const;
  double pass_host(const WorkCost& wc, Work w) const;

  bool produces_grads(Work w) const {
    return zb_ ? w == Work::kBackwardWeight : w == Work::kBackwardInput;
  }

  // The units of one work item in execution order: the chunk's blocks (reversed in backward),
  // with the embedding before them in forward on the first virtual stage and the output layer
  // after them; -1 stands for the embedding, -2 for the output layer.
  // Fills and returns units_ (valid until the next call).
  const std::vector<int>& item_units(int vs, int first, int last, bool forward);

  const LayerCost& unit_cost(int unit) const {
    if (unit == -1) return c_.embedding;
    if (unit == -2) return c_.output;
    return c_.layer(unit);
  }

  void start_item(int i, Work w, int vs, int mb);
  void start_touched(int i);

  int last_compute_task(int i) const {
    return stages_[std::size_t(i)].streams[std::size_t(StreamKind::kCompute)].queue.back();
  }

  // The buckets completed by `layer`'s backward (-1: those of the embedding/output parameters).
  void add_buckets(int i, int layer, int after);

  std::vector<int> add_buckets_after_item(int i, int first, int last, int after);

  int add_segment(int i, Work w, int vs, int mb, int layer, const TimeSplit& split);

  int add_zero3_gather(int i, int unit);

  int add_bucket(int i, const Bucket& b, int after);

  int add_task(int i, StreamKind k, Role role, double duration, TimeCategory cat);

  // `task` waits for `dep` unless dep already finished.
  void depend(int task, int dep);

  // ---- the end of a stage's step: gradient reduction, optimizer, offload ------------------
  void finalize(int i);

  int chain(int i, StreamKind k, double seconds, TimeCategory cat, int after);

  // ---- execution --------------------------------------------------------------------------
  void try_start(int i, StreamKind k);

  void complete(int id);

  // Whether a data-parallel collective's start or end on stage i changes the compute speed.
  bool contends(StreamKind k, const Task& t) const {
    return c_.overlap_slowdown > 0 && t.duration > 0 &&
           (k == StreamKind::kDpGather || k == StreamKind::kDpReduce);
  }

  // Stage i's running compute task: charge its time since the last change, then reschedule its
  // completion at the speed the collectives now in flight allow.
  void retime_compute(int i);

  void finish_item(int i, Work work, int vs, int mb);

  void send(int i, Work work, int vs, int mb, StreamKind k);

  // Transfer `id` arrived: the neighbouring virtual stage may now run; what it starts now was
  // released by this transfer (for gap attribution).
  void deliver(int id, StreamKind stream, int vs, int mb);

  // The compute stream of stage i idled over [a, b): charge it to what it waited for.
  void attribute_gap(int i, double a, double b, int release);

  // Charges the part of [a, b) during which the data-parallel or host streams of stage i were
  // busy to their tasks' categories (each instant once, to the earliest-started task covering it).
  double charge_side_streams(int i, double a, double b, TimeSplit& split);

  // ---- results ------------------------------------------------------------------------------
  StepResult result() const;

  std::string task_name(const Task& t) const;

  std::vector<TraceSlice> trace() const;

  const Scenario& s_;
  const Plan& plan_;
  const StepCosts& c_;
  SimOptions opt_;
  int p_, v_, m_, V_ = 1;
  bool zb_ = false;
  // start_item's micro-batch is the step's last: once-per-step buckets (Bucket::once_per_step)
  // reduce only after it
  bool last_mb_ = false;
  // Zero-bubble schedules defer weight gradients; no stage may then hold more micro-batches
  // than the schedule's first stage (Qi et al.: ZB-H1 peaks at 1F1B's p, ZB-H2 at about 2p).
  int hold_cap_ = 1;
  std::vector<Task> tasks_;
  std::vector<int> units_;  // item_units scratch
  // Per stage: (trigger layer, index in c_.stages[i].buckets), sorted; add_buckets looks a
  // layer's buckets up in O(log B) instead of scanning all B of them for every layer (a scan was
  // O(layers x buckets) per item: 82 s for a million layers).
  std::vector<std::vector<std::pair<int, int>>> bucket_index_;
  // The whole item's time split when it is one segment, per (stage, chunk, work): the same for
  // every micro-batch, so summed over the item's layers once, not once per micro-batch. p x v x 3
  // entries (not p x V x 3 = p^2 x v x 3: a stage only runs its own chunks).
  std::vector<TimeSplit> item_split_;
  std::vector<char> item_split_ready_;
  std::vector<int> gathers_;   // start_item scratch: the ZeRO-3 gathers of the item's units
  std::vector<int> segments_;  // start_item scratch: the item's compute segments, per unit
  unsigned touched_ = 0;       // bit k: stream k received a task (start_item, finalize)
  std::vector<StageState> stages_;
  std::vector<std::uint8_t> f_in_, b_in_, f_done_;
  // Per stage: the latest arrival, which releases the work it enables (gap attribution).
  std::vector<int> pick_release_;
  static constexpr int kPickEvent = 1;
  EventQueue q_;
};

}  // namespace shardsim::des_internal
