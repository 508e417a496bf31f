// Small pure fits: a latency-bandwidth line t = alpha + x / beta, fitted to minimise the squared
// relative error, and a segmented version that splits the size range where the data changes
// regime (NCCL's LL / LL128 / Simple protocols, eager vs rendezvous MPI) instead of averaging the
// regimes into one line. No I/O, no state.
#pragma once

#include <cstddef>
#include <vector>

namespace shardsim::calibrate {

struct Sample {
  double x = 0;  // work: bytes on the wire (bus factor x size) or bytes moved
  double t = 0;  // measured seconds, > 0
};

// t(x) = alpha + x / beta on [x_min, x_max].
struct LineFit {
  double alpha = 0;  // seconds at x = 0 (latency floor), >= 0 (fit_segments_robust: see there)
  double beta = 0;   // x per second at large x (bandwidth); +inf when the time does not grow
  double x_min = 0, x_max = 0;
  std::size_t points = 0;
  // Normalised residual: root mean square of (predicted - measured) / measured over the points.
  double residual = 0;
  [[nodiscard]] double predict(double x) const;
};

// Weighted least squares of t = a + b x with weights 1 / t^2 (relative error), so the
// microsecond points of a latency floor count as much as the second-long bandwidth points:
//   minimise sum ((a + b x_i - t_i) / t_i)^2
//   normal equations with w_i = 1 / t_i^2:
//     a S_w + b S_wx = S_wt,  a S_wx + b S_wxx = S_wxt
// Negative a or b are clamped to 0 and the other refitted alone (a physical line has both >= 0).
// REQUIRES: at least one sample, every t > 0 and x >= 0.
[[nodiscard]] LineFit fit_line(const std::vector<Sample>& samples);

// Piecewise fit over samples sorted by x, for measured curves with outlier rows: contiguous
// segments of at least `min_points` samples, chosen by dynamic programming (over more than 128
// samples, with breakpoints on a grid of 129 evenly spaced rows, each then moved to its best row
// within a grid step, and one whose removal lowers the criterion below removed), where
//   - each segment's line minimises the Huber loss of the relative error
//     (r^2 / 2 for |r| <= huber_delta, huber_delta (|r| - huber_delta / 2) above), by
//     iteratively reweighted least squares, so a row disturbed 2-5x by noise pulls its segment
//     like a 10% error instead of quadratically;
//   - the number of segments k (1 .. samples / min_points) minimises the information criterion
//     n ln(C_k / n) + 3 k (AIC, halved, for an absolute-error likelihood with 3 parameters per
//     segment: intercept, slope, breakpoint), where
//     C_k is the summed Huber loss of the best k-segment split, floored at a 1% error per row
//     (the in-place vs out-of-place spread of nccl-tests rows; a closer fit is fitting noise), so
//     the complexity a curve gets scales with its noise level instead of a fixed penalty;
//   - a segment after the first may have a negative intercept when its line is positive at the
//     segment's first x: time that grows faster than linearly over a range (a collective past
//     the last-level cache) is then followed instead of flattened through the origin. The first
//     segment keeps alpha >= 0 (a latency).
// REQUIRES: samples sorted by x, size >= min_points >= 2, huber_delta > 0.
[[nodiscard]] std::vector<LineFit> fit_segments_robust(const std::vector<Sample>& samples,
                                                       std::size_t min_points, double huber_delta);

// Median of `v` (the mean of the middle two for an even count). REQUIRES: !v.empty().
[[nodiscard]] double median(std::vector<double> v);

}  // namespace shardsim::calibrate
