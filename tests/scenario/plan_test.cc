// Layer placement over pipeline stages and the schedules' in-flight micro-batches.
#include <gtest/gtest.h>

#include "simulator/plan/plan.h"
#include "simulator/plan/schedule.h"

#include <algorithm>

namespace shardsim {
namespace {

TEST(SplitLayers, EvenWhenDivisible) {
  EXPECT_EQ(split_layers(96, 16), std::vector<int>(16, 6));  // 96 / 16 = 6
}

TEST(SplitLayers, UnevenFirstAndLastStagesLikeMegatron) {
  // 30 layers over 4 stages: middle stages take ceil(30/4) = 8; first and last share 30-16 = 14.
  EXPECT_EQ(split_layers(30, 4), (std::vector<int>{7, 8, 8, 7}));
  // DeepSeek-V3's 61 layers over 16 stages: middle 4 each (56), first 2, last 3.
  const auto ds = split_layers(61, 16);
  EXPECT_EQ(ds.front(), 2);
  EXPECT_EQ(ds.back(), 3);
  int sum = 0;
  for (int n : ds) sum += n;
  EXPECT_EQ(sum, 61);
  // 9 layers over 8 stages: ceil (2) in the middle would need 12 layers, so the split balances:
  // 1 each, and the extra layer on the first middle stage.
  EXPECT_EQ(split_layers(9, 8), (std::vector<int>{1, 2, 1, 1, 1, 1, 1, 1}));
  // 40 over 16: ceil 3 in the middle needs 42 > 40; balanced: 2 each, 8 extra layers on stages
  // 1..8 -> nobody above 3 (an earlier rule gave the first and last stages 6).
  const auto s40 = split_layers(40, 16);
  EXPECT_EQ(*std::max_element(s40.begin(), s40.end()), 3);
  EXPECT_EQ(*std::min_element(s40.begin(), s40.end()), 2);
  // 5 over 4: Megatron's rule would leave the first stage empty (rest 1); balanced 1, 2, 1, 1.
  EXPECT_EQ(split_layers(5, 4), (std::vector<int>{1, 2, 1, 1}));
  // 80 over 32 chunks (pp 8, vpp 4): balanced 2 or 3 per chunk; each physical stage's 4 chunks
  // sum to 10.
  const auto s80 = split_layers(80, 32);
  for (int st = 0; st < 8; ++st)
    EXPECT_EQ(s80[st] + s80[st + 8] + s80[st + 16] + s80[st + 24], 10) << st;
}

TEST(SplitLayers, ExplicitFirstAndLast) {
  // Megatron's --decoder-first/last-pipeline-num-layers: 1 + 3*10 + 1 = 32.
  EXPECT_EQ(split_layers(32, 5, 1, 1), (std::vector<int>{1, 10, 10, 10, 1}));
}

TEST(InFlight, OneFOneBHoldsPMinusIOnStageI) {
  // Korthikanti et al. §4.2.3 / Narayanan et al.: the first 1F1B stage holds p micro-batches.
  EXPECT_EQ(in_flight_microbatches(Schedule::k1F1B, 0, 8, 1, 64), 8);
  EXPECT_EQ(in_flight_microbatches(Schedule::k1F1B, 7, 8, 1, 64), 1);
  EXPECT_EQ(in_flight_microbatches(Schedule::k1F1B, 0, 8, 1, 3), 3);   // capped at m
  EXPECT_EQ(in_flight_microbatches(Schedule::kZbH1, 0, 8, 1, 64), 8);  // ZB-H1 = 1F1B memory
}

TEST(InFlight, GpipeHoldsAllMicroBatches) {
  EXPECT_EQ(in_flight_microbatches(Schedule::kGpipe, 3, 8, 1, 64), 64);
}

TEST(InFlight, ZeroBubbleH1HoldsPOnEveryStage) {
  // Qi et al. §2.1: ZB-H1 delays W so that every stage holds p micro-batches (1F1B's stage-0 peak).
  EXPECT_EQ(in_flight_microbatches(Schedule::kZbH1, 7, 8, 1, 64), 8);
}

TEST(InFlight, ProgramWalkAgreesWithTheCounts) {
  // The memory model walks the schedule programs; with equal chunk sizes the live micro-batches at
  // the peak equal the closed-form counts (p = 4, v = 2, m = 8 interleaved; p = 4 1F1B, ZB-H1).
  for (int stage = 0; stage < 4; ++stage) {
    for (Schedule s : {Schedule::k1F1B, Schedule::kZbH1, Schedule::kInterleaved}) {
      const int v = s == Schedule::kInterleaved ? 2 : 1;
      const auto live = peak_live_per_chunk(s, stage, 4, v, 8, std::vector<double>(v, 1.0));
      double total = 0;
      for (auto n : live) total += double(n);
      EXPECT_DOUBLE_EQ(total / v, in_flight_microbatches(s, stage, 4, v, 8)) << stage;
    }
  }
}

TEST(InFlight, ZeroBubbleH2HoldsAboutTwice) {
  // Qi et al. (ZB-2p): 2x 1F1B's activation memory; first stage 2p - 1 = 15 for p = 8.
  EXPECT_EQ(in_flight_microbatches(Schedule::kZbH2, 0, 8, 1, 64), 15);
}

TEST(InFlight, InterleavedFirstStageMatchesKorthikantiFactor) {
  // p = 8, v = 2: p * (1 + (p-1)/(p*v)) = 8 * (1 + 7/16) = 11.5 stage micro-batches.
  EXPECT_DOUBLE_EQ(in_flight_microbatches(Schedule::kInterleaved, 0, 8, 2, 64), 11.5);
}

}  // namespace
}  // namespace shardsim
