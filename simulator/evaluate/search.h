// `shardsim search`: the fastest plans that fit. For the scenario's model, GPU count and batch it
// enumerates tp, pp, vpp, cp, ep, dp, micro-batch, ZeRO stage, optimizer offload, recomputation,
// sequence parallelism and schedule (each pinnable, or constrained by the scenario's "search"
// section), evaluates every plan with the analytic model on several threads, drops those that
// cannot run (counted per reason), ranks the rest by analytic throughput and re-ranks the top K
// with the discrete-event simulation. The ranking does not depend on the thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "simulator/evaluate/estimate.h"

namespace shardsim {

// One plan after the analytic pass: its analytic figures, or why it was dropped.
struct PlanOutcome {
  double tokens_per_second = -1, step_seconds = 0, peak_bytes = 0;
  std::string reason;  // empty: feasible; else an infeasibility code or "invalid <path>"
  bool operator==(const PlanOutcome&) const = default;
};

struct SearchOptions {
  int threads = 1;
  int top_k = 0;  // 0: the scenario's search.top_k
  // Dotted keys pinned on the command line (--set): searched at the scenario's value only.
  // Searchable: parallel.{tp,pp,vpp,cp,ep,dp,zero,sp,offload_optimizer,schedule},
  // training.{micro_batch,recompute}.
  std::vector<std::string> pinned;
  // Called now and then from the calling thread with (plans evaluated, plans this process
  // evaluates: the whole space unless split over processes).
  std::function<void(std::size_t, std::size_t)> progress;
  bool points = false;  // fill SearchResult::points
  // Splitting the space over processes (`mpirun -np N shardsim search`): this process evaluates
  // the plans whose enumeration index i has i % shards == shard; `gather` then receives every
  // plan's outcome vector with only those entries filled and must fill the rest from the other
  // processes (the CLI does it with MPI, simulator/cli/search_mpi.h). `finish` false: return after
  // gathering, with no results (the processes that do not print).
  int shard = 0, shards = 1;
  std::function<void(std::vector<PlanOutcome>&)> gather;
  bool finish = true;
};

// One plan of the space: the searched fields (the rest is the scenario's).
struct Candidate {
  int tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, dp = 1, zero = 0;
  std::int64_t micro_batch = 1;
  bool sp = false, offload_optimizer = false;
  Recompute recompute = Recompute::kNone;
  Schedule schedule = Schedule::k1F1B;
  CpComm cp_comm = CpComm::kP2p;  // parallel.cp_comm_type (matters only with cp > 1)
  bool operator==(const Candidate&) const = default;
};

// "tp 2 pp 1 vpp 1 cp 1 ep 1 dp 4 mb 2 zero 1 sp off-opt:no recompute none 1f1b"-style text.
[[nodiscard]] std::string describe(const Candidate& c);
// The scenario with the candidate's fields set (strategy and training.micro_batch).
void apply(const Candidate& c, Scenario& s);
// The scenario's own plan (apply's inverse).
[[nodiscard]] Candidate candidate_of(const Scenario& s);

struct RankedPlan {
  Candidate plan;
  // Discrete-event (analytic when the simulation would be too large). Its `scenario` is the one
  // search_plans was given, whose strategy is not `plan`'s: the estimate holds the plan's strategy
  // and micro-batch by value (see Estimate), so writers read those.
  Estimate estimate;
  double analytic_step_seconds = 0;
  double analytic_tokens_per_second = 0;
  std::size_t analytic_rank = 0;  // 1-based, among the feasible plans
};

// A plan that runs, as the analytic model saw it (the scatter of `--html`).
struct PlanPoint {
  double peak_bytes = 0;
  double tokens_per_second = 0;
  std::string label;  // describe(plan)
};

struct SearchResult {
  std::size_t space = 0;       // plans enumerated
  std::size_t considered = 0;  // plans evaluated (= space)
  std::size_t feasible = 0;
  // Plans dropped, by reason: an infeasibility code ("memory", "interleaved_microbatches", ...)
  // or "invalid <path>" for a strategy the scenario rules refuse (e.g. heads not divisible by tp).
  std::map<std::string, std::size_t> infeasible;
  int top_k = 0;
  std::vector<RankedPlan> results;  // at most top_k, best first (discrete-event tokens/s)
  // The scenario's own strategy: its analytic rank among the feasible plans (0: not in the space
  // or not feasible).
  Candidate baseline;
  std::size_t baseline_rank = 0;
  std::vector<PlanPoint>
      points;  // every plan that runs, in enumeration order (SearchOptions::points)
};

// The candidates of `s`'s space in a fixed order (see search_plans).
[[nodiscard]] std::vector<Candidate> enumerate_candidates(const Scenario& s,
                                                          const std::vector<std::string>& pinned);

// REQUIRES: `s` came from load_scenario and outlives the result (its estimates point at it). A
// pinned key that is not a search dimension (a model or training key given with --set) changes
// nothing here: its value is already in `s`.
[[nodiscard]] SearchResult search_plans(const Scenario& s, const SearchOptions& o);

}  // namespace shardsim
