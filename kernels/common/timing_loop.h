// The one timing loop: every descriptor of every backend is measured by measure().
//
// Per descriptor, on every rank in lockstep:
//   1. setup; one run; verify against the reference (logical and over ranks);
//   2. `warmup_runs` untimed runs, then one timed run whose maximum over ranks sets how many runs
//      one sample batches: runs_per_sample = clamp(ceil(min_sample_s / t_one), 1, max_runs);
//   3. repetitions: barrier, time runs_per_sample runs, divide, take the maximum over ranks (the
//      slowest rank bounds a collective, and for local kernels it is the rank that would stall a
//      synchronous step); stop once there are min_repetitions samples summing to min_total_s, or
//      max_repetitions samples.
// Because every sample is reduced before the stop test, all ranks take the same decisions and
// reach the same synchronisation points; a rank that fails or is lost makes the others' next
// deadline-bounded barrier throw (comm.h) instead of hanging.
#pragma once

#include <functional>
#include <vector>

#include "kernels/common/comm.h"
#include "kernels/common/descriptor.h"
#include "kernels/common/stats.h"

namespace shardsim::kernels {

struct LoopConfig {
  int warmup_runs = 2;
  int min_repetitions = 5;
  int max_repetitions = 30;
  double min_total_s = 0.1;     // keep repeating until the samples sum to this much
  double min_sample_s = 50e-6;  // batch runs until one sample lasts at least this long
  int max_runs_per_sample = 1000;
};

struct Measurement {
  std::vector<double> samples_s;  // seconds per run, one per repetition, max over ranks
  int runs_per_sample = 1;
  Summary summary;
  Verification verification;  // this rank's detail; ok is the logical and over ranks
};

// Runs the loop above for one descriptor. Throws CallError on a failed library call or deadline.
// `started` (if set) runs once on every rank after the ranks agreed to start the item, before its
// first run (the sweep's test hook, rank_signals.h).
[[nodiscard]] Measurement measure(const Descriptor& descriptor, Timer& timer, const Comm& comm,
                                  const LoopConfig& config,
                                  const std::function<void()>& started = nullptr);

// runs_per_sample for a run lasting `one_run_s`: ceil(min_sample_s / one_run_s) clamped to
// [1, max_runs_per_sample]; max_runs_per_sample when one_run_s <= 0 (too short to measure).
[[nodiscard]] int runs_per_sample(double one_run_s, const LoopConfig& config);

}  // namespace shardsim::kernels
