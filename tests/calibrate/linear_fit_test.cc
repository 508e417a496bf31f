// The pure fits of calibrate/linear_fit.h on data whose answer is known by construction.
#include "calibrate/linear_fit.h"

#include <gtest/gtest.h>

#include <cmath>

namespace shardsim::calibrate {
namespace {

// t = alpha + x / beta at x = 2^3 .. 2^30 (nccl-tests' doubling sweep).
std::vector<Sample> line(double alpha, double beta, int from = 3, int to = 30) {
  std::vector<Sample> s;
  for (int e = from; e <= to; ++e)
    s.push_back({std::ldexp(1.0, e), alpha + std::ldexp(1.0, e) / beta});
  return s;
}

TEST(fit_line, RecoversAnExactLine) {
  // A 5 us latency and 100 GB/s: the weighted normal equations solve it exactly.
  const LineFit f = fit_line(line(5e-6, 1e11));
  EXPECT_NEAR(f.alpha, 5e-6, 5e-6 * 1e-9);
  EXPECT_NEAR(f.beta, 1e11, 1e11 * 1e-9);
  EXPECT_LT(f.residual, 1e-9);
  EXPECT_EQ(f.points, 28u);  // 2^3 .. 2^30
  EXPECT_DOUBLE_EQ(f.predict(1e9), 5e-6 + 1e9 / 1e11);
}

TEST(fit_line, RelativeWeightingKeepsTheLatencyFloor) {
  // 10% noise alternating in sign on every point: an unweighted fit would let the 10 ms points
  // swamp the 5 us floor; relative weighting keeps alpha within the noise (+-10%).
  std::vector<Sample> s = line(5e-6, 1e11);
  for (std::size_t i = 0; i < s.size(); ++i) s[i].t *= i % 2 ? 1.1 : 0.9;
  const LineFit f = fit_line(s);
  EXPECT_NEAR(f.alpha, 5e-6, 0.1 * 5e-6);
  EXPECT_NEAR(f.beta, 1e11, 0.1 * 1e11);
  EXPECT_NEAR(f.residual, 0.1, 0.02);  // relative errors of about +-10%
}

TEST(fit_line, ClampsToPhysicalLines) {
  // Times that fall with size (a negative slope) fit as a flat line at the weighted mean:
  // t = 2, 1 -> w = 1/4, 1 -> a = (2/4 + 1) / (1/4 + 1) = 1.2.
  const LineFit f = fit_line({{1, 2}, {2, 1}});
  EXPECT_TRUE(std::isinf(f.beta));
  EXPECT_NEAR(f.alpha, 1.2, 1e-12);
}

TEST(fit_segments_robust, KeepsOneSegmentForOneRegime) {
  // An exact line gains nothing from a split: its loss is at the 1% floor with one segment, and
  // every extra segment costs 3 in the criterion.
  EXPECT_EQ(fit_segments_robust(line(5e-6, 1e11), 4, 0.1).size(), 1u);
}

TEST(fit_segments_robust, IgnoresADisturbedRow) {
  // One exact line with one row 5x too slow (a stall): the Huber loss leaves the line where the
  // other rows put it (least squares would pull it), and one segment is kept.
  std::vector<Sample> s = line(5e-6, 1e11);
  s[5].t *= 5;
  const auto fits = fit_segments_robust(s, 4, 0.1);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_NEAR(fits[0].alpha, 5e-6, 5e-6 * 0.01);
  EXPECT_NEAR(fits[0].beta, 1e11, 1e11 * 0.01);
}

TEST(fit_segments_robust, FindsTheProtocolSwitch) {
  // Below 64 KiB a low-latency protocol (2 us, 20 GB/s), above it a bandwidth protocol
  // (20 us, 200 GB/s): two segments, each recovered exactly, split at the switch.
  std::vector<Sample> s = line(2e-6, 2e10, 3, 16);
  const auto big = line(2e-5, 2e11, 17, 30);
  s.insert(s.end(), big.begin(), big.end());
  const auto fits = fit_segments_robust(s, 4, 0.1);
  ASSERT_EQ(fits.size(), 2u);
  EXPECT_EQ(fits[0].x_max, 65536.0);  // 2^16
  EXPECT_NEAR(fits[0].alpha, 2e-6, 1e-12);
  EXPECT_NEAR(fits[0].beta, 2e10, 2e10 * 1e-6);
  EXPECT_NEAR(fits[1].alpha, 2e-5, 1e-12);
  EXPECT_NEAR(fits[1].beta, 2e11, 2e11 * 1e-6);
}

TEST(fit_segments_robust, FollowsACacheCliffWithANegativeIntercept) {
  // The CPU backend's 2-rank MPI all_reduce (medians of one quick sweep on the 2-vCPU
  // development machine, 2026-11-23): 1 KiB 0.55 us, 16 KiB 11.6 us, 256 KiB 78 us, 4 MiB 0.81 ms,
  // 64 MiB 178 ms. Past the last-level cache time grows 220x for 16x the bytes. A second segment
  // through (4 MiB, 0.81 ms) and (64 MiB, 178 ms) has slope (178e-3 - 0.81e-3) / (60 MiB) and a
  // negative intercept; clamping it through the origin would miss both points. Least squares
  // (delta 1e9): 5 rows are too few to call one an outlier.
  const std::vector<Sample> s = {
      {1024, 0.55e-6}, {16384, 11.6e-6}, {262144, 78e-6}, {4194304, 0.81e-3}, {67108864, 178e-3}};
  const auto fits = fit_segments_robust(s, 2, 1e9);
  ASSERT_EQ(fits.size(), 2u);
  EXPECT_EQ(fits[1].x_min, 4194304.0);
  EXPECT_LT(fits[1].alpha, 0);
  // Two points, two parameters: the line passes through both (to 1e-9 relative).
  EXPECT_NEAR(fits[1].predict(4194304), 0.81e-3, 0.81e-3 * 1e-9);
  EXPECT_NEAR(fits[1].predict(67108864), 178e-3, 178e-3 * 1e-9);
  // The first segment stays a latency line: alpha >= 0.
  EXPECT_GE(fits[0].alpha, 0);
}

// `rows` samples at x = 1 KiB .. rows KiB in two regimes, the first `first` rows on
// FindsTheProtocolSwitch's latency line (2 us, 20 GB/s), the rest on its bandwidth line (20 us,
// 200 GB/s): two segments, each line recovered exactly, split at the switch.
void expect_the_switch_found(int rows, int first) {
  std::vector<Sample> s;
  for (int i = 0; i < rows; ++i) {
    const double x = 1024.0 * (i + 1);
    s.push_back({x, i < first ? 2e-6 + x / 2e10 : 2e-5 + x / 2e11});
  }
  const auto fits = fit_segments_robust(s, 4, 0.1);
  ASSERT_EQ(fits.size(), 2u);
  EXPECT_EQ(fits[0].x_max, 1024.0 * first);
  EXPECT_NEAR(fits[0].alpha, 2e-6, 1e-12);
  EXPECT_NEAR(fits[0].beta, 2e10, 2e10 * 1e-6);
  EXPECT_NEAR(fits[1].alpha, 2e-5, 1e-12);
  EXPECT_NEAR(fits[1].beta, 2e11, 2e11 * 1e-6);
}

TEST(fit_segments_robust, ALongLinearSweepKeepsBothRegimes) {
  // 2,000 rows (a linear nccl-tests sweep): above 128 rows the breakpoints are first sought on
  // a grid of 129 rows, i x 2000 / 128 (the fit's cost grows with the square of its candidates),
  // then refined. The switch at row 1,024 is on no grid row (1,015 and 1,031 are).
  expect_the_switch_found(2000, 1024);
}

TEST(fit_segments_robust, ASwitchBetweenGridPointsIsFoundToTheRow) {
  // 4,000 rows: the coarse grid is every 4000 / 128 = 31.25th row (1,531 and 1,562 near the
  // switch), and the switch at row 1,550 lies between two of them. The breakpoint is then refined
  // to the row, and no third segment is kept across the switch (found by review, 2026-11-28:
  // a middle segment of 3.96-4.04 MB with a -812 us intercept).
  expect_the_switch_found(4000, 1550);
}

TEST(median, OddAndEven) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);  // (2 + 3) / 2
}

}  // namespace
}  // namespace shardsim::calibrate
