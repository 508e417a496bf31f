// estimated_tasks (the DES size bound, issue 11 defect 3) against the tasks simulate_step really
// creates, for plans that exercise every way an item becomes tasks: one segment per item, block
// by block under ZeRO-3, overlapped and non-overlapped gradient buckets, ZeRO-2's per-micro-batch
// reduction, pipelines with interleaving and the zero-bubble schedule's third work kind. The
// estimate must never be below the real count (or a plan over the limit would slip through) and
// should be within a factor of 4 above it (or plans would be refused needlessly): the widest
// case is a non-overlapped reduction, where the estimate counts one bucket per block and the
// real buckets (25 M elements each) hold several of llama3-8b's blocks (ZeRO-2 without overlap:
// 165 real tasks, more than 3x that estimated).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "simulator/cost/step_costs.h"
#include "simulator/des/step_sim.h"
#include "simulator/plan/plan.h"
#include "simulator/scenario/load.h"

namespace shardsim {
namespace {

TEST(DesSize, EstimateBoundsTheRealTaskCount) {
  const std::vector<std::vector<std::string>> cases = {
      {},  // the example: tp 2, ZeRO-1, overlapped buckets (last micro-batch block by block)
      {"parallel.overlap_grad_reduce=false"},
      {"parallel.zero=0"},
      {"parallel.zero=2"},
      {"parallel.zero=2", "parallel.overlap_grad_reduce=false"},
      {"parallel.zero=3"},
      {"parallel.zero=3", "parallel.zero3_prefetch=0"},
      {"parallel.pp=4", "parallel.dp=1", "parallel.tp=2"},
      {"parallel.pp=4", "parallel.dp=1", "parallel.vpp=2", "parallel.schedule=interleaved"},
      {"parallel.pp=4", "parallel.dp=1", "parallel.schedule=zb-h1"},
      {"parallel.pp=2", "parallel.dp=2", "parallel.zero=1", "parallel.overlap_grad_reduce=false"},
  };
  for (const auto& sets : cases) {
    std::string what;
    for (const auto& x : sets) what += x + " ";
    const Scenario s = load_scenario("llama3-8b-8xh100", sets);
    const Plan plan = make_plan(s);
    const StepCosts c = compute_step_costs(s, plan);
    const StepResult r = simulate_step(s, plan, c);
    const double estimate = estimated_tasks(s, plan);
    EXPECT_GE(estimate, double(r.tasks)) << what;
    EXPECT_LE(estimate, 4.0 * double(r.tasks)) << what << " real " << r.tasks;
  }
}

}  // namespace
}  // namespace shardsim
