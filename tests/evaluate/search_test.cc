// search_plans on the benchmark case: Llama 3 405B on 16,384 H100s (Dubey et al. 2024,
// "The Llama 3 Herd of Models", Table 4: TP 8, CP 1, PP 16, DP 128, sequence 8,192, 16M tokens
// per batch = 2,048 sequences; the virtual pipeline size is not given there). The full default
// space holds over 100,000 plans, and the best plan found must be at least as fast, under
// shardsim's own model, as Meta's plan at its best virtual-pipeline size.
#include <gtest/gtest.h>

#include <limits>

#include "simulator/evaluate/evaluate.h"
#include "simulator/evaluate/search.h"
#include "simulator/scenario/load.h"

namespace shardsim {
namespace {

nlohmann::json llama3_405b_meta_plan() {
  return {{"name", "llama3-405b-16384xh100"},
          {"model", {{"preset", "llama3-405b"}}},
          {"training",
           {{"seq_len", 8192}, {"global_batch", 2048}, {"micro_batch", 1}, {"precision", "bf16"}}},
          {"parallel",
           {{"tp", 8},
            {"sp", true},
            {"cp", 1},
            {"pp", 16},
            {"vpp", 2},
            {"dp", 128},
            {"schedule", "interleaved"},
            {"zero", 1}}},
          {"cluster", {{"gpu", "h100-sxm"}, {"nodes", 2048}}}};
}

TEST(search, Llama3_405bBestPlanIsAtLeastAsFastAsMetas) {
  const Scenario s = scenario_from_json(llama3_405b_meta_plan(), "");
  // Meta's plan under shardsim's model, at each virtual-pipeline size that splits 126 layers
  // over 16 stages (2..7 chunks per stage), discrete-event: the fastest of them.
  double meta_best = std::numeric_limits<double>::infinity();
  for (int vpp = 2; vpp <= 7; ++vpp) {
    Scenario m = s;
    m.strategy.vpp = vpp;
    const Expected<Estimate> e = evaluate(m, {Mode::kDes});
    if (e.ok() && e->time) meta_best = std::min(meta_best, e->time->step_seconds);
  }
  ASSERT_TRUE(std::isfinite(meta_best));
  SearchOptions o;
  o.threads = 2;
  o.top_k = 20;
  const SearchResult r = search_plans(s, o);
  EXPECT_GE(r.considered, 100000u);  // the "full space" of at least 100,000 plans
  ASSERT_FALSE(r.results.empty());
  EXPECT_EQ(r.results.front().estimate.time->mode, Mode::kDes);
  EXPECT_LE(r.results.front().estimate.time->step_seconds, meta_best);
  EXPECT_TRUE(r.results.front().estimate.feasible());
}

}  // namespace
}  // namespace shardsim
