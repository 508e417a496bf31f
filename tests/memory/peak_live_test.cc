// peak_live_per_chunk (plan/schedule.h) answers in closed form where the schedule program's walk
// is provably the same (positive integer chunk bytes, so the walk's sums are exact). These tests
// hold it to the walk itself, re-implemented here exactly as it stood before the closed forms:
// every (schedule, p, v, m, stage) of a grid, with even and uneven chunk bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "simulator/plan/schedule.h"

namespace shardsim {
namespace {

// The reference: walk the program prefix, keep the live counts at the first strict maximum of the
// live bytes (a chunk micro-batch lives from its F to its B, or its W under the ZB schedules).
std::vector<std::int64_t> walked_peak(Schedule schedule, int stage, int pp, int vpp, std::int64_t m,
                                      const std::vector<double>& bytes) {
  std::vector<std::int64_t> live(std::size_t(vpp), 0), peak = live;
  const bool zb = schedule_traits(schedule).split_weight_grad;
  const std::size_t steps = std::size_t(4) * std::size_t(3 * pp * vpp + 2 * pp) + 16;
  double sum = 0, best = -1;
  for (const ProgramItem& it : stage_program(schedule, stage, pp, vpp, m, steps)) {
    const int chunk = order_position(stage, it.k, it.pass != Pass::kForward, pp, vpp).first / pp;
    if (it.pass == Pass::kForward) {
      ++live[std::size_t(chunk)];
      sum += bytes[std::size_t(chunk)];
    } else if (it.pass == (zb ? Pass::kBackwardWeight : Pass::kBackwardInput)) {
      --live[std::size_t(chunk)];
      sum -= bytes[std::size_t(chunk)];
    }
    if (sum > best) {
      best = sum;
      peak = live;
    }
  }
  return peak;
}

// Chunk byte patterns: even; the first chunk heavier (embedding on stage 0); the last heavier
// (output layer on the last stage); rising; falling; uneven layer counts (3, 2, 3, ...).
std::vector<std::vector<double>> patterns(int v) {
  std::vector<std::vector<double>> out(6, std::vector<double>(std::size_t(v), 1000));
  out[1].front() += 77;
  out[2].back() += 501;
  for (int c = 0; c < v; ++c) {
    out[3][std::size_t(c)] = 100.0 * (c + 1);
    out[4][std::size_t(c)] = 100.0 * (v - c);
    out[5][std::size_t(c)] = c % 2 == 0 ? 3000 : 2000;
  }
  return out;
}

void expect_matches_walk(Schedule schedule, int max_v) {
  for (int p : {1, 2, 3, 4, 5, 8, 16})
    for (int v = 1; v <= max_v; ++v)
      for (std::int64_t m : {1, 2, 3, 4, 7, 8, 16, 33, 64, 128})
        for (int i = 0; i < p; ++i)
          for (const auto& bytes : patterns(v))
            ASSERT_EQ(peak_live_per_chunk(schedule, i, p, v, m, bytes),
                      walked_peak(schedule, i, p, v, m, bytes))
                << "p " << p << " v " << v << " m " << m << " stage " << i << " bytes[0] "
                << bytes[0];
}

TEST(PeakLive, InterleavedMatchesTheWalk) {
  expect_matches_walk(Schedule::kInterleaved, 5);
}
TEST(PeakLive, OneFOneBMatchesTheWalk) {
  expect_matches_walk(Schedule::k1F1B, 3);
}
TEST(PeakLive, ZbH1MatchesTheWalk) {
  expect_matches_walk(Schedule::kZbH1, 2);
}

// Bytes the closed forms do not take (zero, fractional) still get the walk's answer.
TEST(PeakLive, InexactBytesMatchTheWalk) {
  for (const std::vector<double>& bytes :
       {std::vector<double>{0.1, 0.7}, std::vector<double>{0, 5}, std::vector<double>{0, 0}})
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(peak_live_per_chunk(Schedule::kInterleaved, i, 4, 2, 8, bytes),
                walked_peak(Schedule::kInterleaved, i, 4, 2, 8, bytes));
}

// GPT-3 175B's first stage (p 16, v 2, m 128) with the embedding on chunk 0 (b0 > b1): the
// warm-up runs 2(p - 1) + (v - 1)p = 46 forwards and the first steady forward a 47th: entries
// 0-15 and 32-46 of the forward order are chunk 0 (31), 16-31 chunk 1 (16). The next forward
// (entry 47) is chunk 0 while the first backward frees chunk 1 (the backward order starts at the
// last chunk): +b0 - b1 > 0, so the peak is 32 live on chunk 0 and 15 on chunk 1; after that
// both orders advance through the same chunk (increments 0) until the period repeats.
TEST(PeakLive, Gpt3FirstStageHoldsOneMoreOfItsEmbeddingChunk) {
  const auto live = peak_live_per_chunk(Schedule::kInterleaved, 0, 16, 2, 128, {1100, 1000});
  EXPECT_EQ(live, (std::vector<std::int64_t>{32, 15}));
}

}  // namespace
}  // namespace shardsim
