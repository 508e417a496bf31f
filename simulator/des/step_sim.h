// Discrete-event simulation of one training step of one data-parallel replica's pipeline. Each
// pipeline stage is simulated as one rank (all ranks of a stage are identical) with a compute
// stream and communication streams (pipeline sends each way, data-parallel, host copies). Work is
// issued by a per-stage scheduler that implements GPipe, 1F1B, interleaved 1F1B, ZB-H1 and ZB-H2
// as priority rules with an in-flight limit; streams execute their tasks in order, each task
// starting once the stream is free and its dependencies are done.
#pragma once

#include <string>
#include <vector>

#include "simulator/core/diagnostics.h"
#include "simulator/cost/step_costs.h"
#include "simulator/cost/time_split.h"
#include "simulator/plan/plan.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

// Streams of one rank. Parameter gathers and gradient reductions run on separate streams, as
// FSDP and Megatron do, so a prefetch never queues behind a reduction.
enum class StreamKind : int { kCompute, kPpForward, kPpBackward, kDpGather, kDpReduce, kHost };
inline constexpr int kStreamKinds = 6;
[[nodiscard]] std::string stream_name(StreamKind k);

struct TraceSlice {
  int stage = 0;
  StreamKind stream = StreamKind::kCompute;
  double start = 0, end = 0;  // seconds
  std::string name;
  std::string category;
};

struct StepResult {
  double step_seconds = 0;
  TimeSplit breakdown;  // of the critical (last-finishing) stage; sums to step_seconds
  int critical_stage = 0;
  std::vector<double> stage_end_seconds;
  std::vector<TimeSplit> stage_breakdowns;
  std::size_t tasks = 0;          // tasks simulated (a size measure for benchmarks)
  std::vector<TraceSlice> trace;  // filled when SimOptions::trace
};

struct SimOptions {
  bool trace = false;
};

// Simulations estimated above this many tasks (work items, each a single task or, under ZeRO-3
// or overlapped reductions, one per block plus its gathers and reductions, pipeline sends and
// gradient buckets; check_simulation_size counts them from the plan before anything is
// allocated) are refused (InputError naming /model/layers or /training/global_batch, whichever
// drives the count) with a pointer to --mode analytic, so huge inputs never hang or exhaust
// memory: near the bound a simulation takes about 1-2.5 s and 270-400 MB (measured on the 2-core
// development machine: 960k tasks of one-segment items 1.0 s / 273 MB; 864k ZeRO-3 tasks
// 2.2 s / 394 MB).
inline constexpr double kMaxTasks = 1e6;

// The tasks simulate_step will create for this plan, counted from the plan alone (an upper
// bound within a small factor: tests/des/des_size_test.cc).
[[nodiscard]] double estimated_tasks(const Scenario& s, const Plan& plan);

// Empty when the simulation of this plan stays within kMaxTasks; else one diagnostic naming the
// setting to change.
[[nodiscard]] Diagnostics check_simulation_size(const Scenario& s, const Plan& plan);

// REQUIRES: check_simulation_size(s, plan) is empty (InputError otherwise).
[[nodiscard]] StepResult simulate_step(const Scenario& s, const Plan& plan, const StepCosts& costs,
                                       const SimOptions& options = {});

}  // namespace shardsim
