#include "calibrate/linear_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardsim::calibrate {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Sum of squared relative errors of the line (a, b) over samples [lo, hi).
double sse(const std::vector<Sample>& s, std::size_t lo, std::size_t hi, double a, double b) {
  double e = 0;
  for (std::size_t i = lo; i < hi; ++i) {
    const double r = (a + b * s[i].x - s[i].t) / s[i].t;
    e += r * r;
  }
  return e;
}

// Weighted least squares on [lo, hi) with weights extra_w[i - lo] / t_i^2 (extra_w empty: 1):
// returns (a, b) with b >= 0 and a >= 0, or a < 0 when `floor_x` > 0 and the line stays positive
// at x = floor_x (a segment above the first: a local affine piece of a curve that grows faster
// than linearly, e.g. past a cache; floor_x is the segment's first size).
std::pair<double, double> solve(const std::vector<Sample>& s, std::size_t lo, std::size_t hi,
                                const std::vector<double>& extra_w = {}, double floor_x = 0) {
  double sw = 0, swx = 0, swxx = 0, swt = 0, swxt = 0;
  for (std::size_t i = lo; i < hi; ++i) {
    const double w = (extra_w.empty() ? 1.0 : extra_w[i - lo]) / (s[i].t * s[i].t);
    sw += w;
    swx += w * s[i].x;
    swxx += w * s[i].x * s[i].x;
    swt += w * s[i].t;
    swxt += w * s[i].x * s[i].t;
  }
  const double det = sw * swxx - swx * swx;
  double a = det > 0 ? (swt * swxx - swx * swxt) / det : swt / sw;
  double b = det > 0 ? (sw * swxt - swx * swt) / det : 0;
  if (a < 0 && !(floor_x > 0 && b > 0 && a + b * floor_x > 0)) {
    // through the origin: minimise sum w (b x - t)^2 -> b = S_wxt / S_wxx
    a = 0;
    b = swxx > 0 ? swxt / swxx : 0;
  }
  if (b < 0) {  // flat: a = S_wt / S_w
    b = 0;
    a = swt / sw;
  }
  return {a, b};
}

constexpr int kHuberIterations = 30;  // IRLS steps; the weights settle within ~10 on nccl-tests
// Relative error per row below which a fit counts as exact: the in-place vs out-of-place spread
// of nccl-tests rows is ~1% (median over the rows of the shared logs: 0.03-3.7% per log), so a
// closer fit is fitting noise (and 2-row segments, always exact, would otherwise always win).
constexpr double kExactRelativeError = 0.01;
// fit_segments_robust: at most this many segments of the coarse grid (every sample below it).
constexpr std::size_t kMaxCuts = 128;

// Huber loss of a relative error r.
double huber(double r, double delta) {
  const double m = std::abs(r);
  return m <= delta ? m * m / 2 : delta * (m - delta / 2);
}

// Huber line on [lo, hi) by iteratively reweighted least squares (weight min(1, delta / |r|)).
std::pair<double, double> solve_huber(const std::vector<Sample>& s, std::size_t lo, std::size_t hi,
                                      double delta, double floor_x) {
  std::vector<double> w(hi - lo, 1.0);
  auto ab = solve(s, lo, hi, {}, floor_x);
  for (int it = 0; it < kHuberIterations; ++it) {
    for (std::size_t i = lo; i < hi; ++i) {
      const double r = std::abs((ab.first + ab.second * s[i].x - s[i].t) / s[i].t);
      w[i - lo] = r <= delta ? 1.0 : delta / r;
    }
    ab = solve(s, lo, hi, w, floor_x);
  }
  return ab;
}

double huber_cost(const std::vector<Sample>& s, std::size_t lo, std::size_t hi, double a, double b,
                  double delta) {
  double c = 0;
  for (std::size_t i = lo; i < hi; ++i) c += huber((a + b * s[i].x - s[i].t) / s[i].t, delta);
  return c;
}

LineFit make_fit(const std::vector<Sample>& s, std::size_t lo, std::size_t hi, double a, double b) {
  LineFit f;
  f.alpha = a;
  f.beta = b > 0 ? 1 / b : kInf;
  f.x_min = s[lo].x;
  f.x_max = s[hi - 1].x;
  f.points = hi - lo;
  f.residual = std::sqrt(sse(s, lo, hi, a, b) / double(hi - lo));
  return f;
}

LineFit make_fit(const std::vector<Sample>& s, std::size_t lo, std::size_t hi) {
  const auto [a, b] = solve(s, lo, hi);
  return make_fit(s, lo, hi, a, b);
}

}  // namespace

double LineFit::predict(double x) const {
  return alpha + (std::isinf(beta) ? 0.0 : x / beta);
}

LineFit fit_line(const std::vector<Sample>& samples) {
  return make_fit(samples, 0, samples.size());
}

std::vector<LineFit> fit_segments_robust(const std::vector<Sample>& samples, std::size_t min_points,
                                         double huber_delta) {
  const std::size_t n = samples.size();
  // The Huber line of [i, j) (a segment after the first may dip below the origin: its line must
  // be positive from its first size on; below it, in the gap, simulator/cost/collective.cc scales
  // that time down in proportion to size) and its loss; a segment under min_points costs kInf.
  const auto fit_of = [&](std::size_t i, std::size_t j) {
    const double floor_x = i > 0 ? samples[i].x : 0;
    return solve_huber(samples, i, j, huber_delta, floor_x);
  };
  const auto loss_of = [&](std::size_t i, std::size_t j) {
    if (j < i + min_points) return kInf;
    const auto [a, b] = fit_of(i, j);
    return huber_cost(samples, i, j, a, b, huber_delta);
  };
  // n ln(C_k / n) + 3 k: AIC (halved) for an absolute-error likelihood, 3 parameters a segment.
  const double floor = double(n) * huber(kExactRelativeError, huber_delta);
  const auto criterion = [&](std::size_t k, double total) {
    return double(n) * std::log(std::max(total, floor) / double(n)) + 3.0 * double(k);
  };
  // Where a segment may start or end: every sample up to kMaxCuts samples, else kMaxCuts + 1
  // evenly spaced ones, so the fits below stay O(kMaxCuts^2 n) (found by review, 2026-11-28: a
  // 1,600-row log took 51 s, every [i, j) of every row fitted; nccl-tests prints about 30
  // sizes). The breakpoints found are then refined to single rows.
  std::vector<std::size_t> at;
  if (n <= kMaxCuts) {
    for (std::size_t i = 0; i <= n; ++i) at.push_back(i);
  } else {
    for (std::size_t i = 0; i <= kMaxCuts; ++i) at.push_back(i * n / kMaxCuts);
  }
  const std::size_t c = at.size();
  std::vector<std::vector<double>> loss(c, std::vector<double>(c, kInf));
  for (std::size_t a = 0; a + 1 < c; ++a)
    for (std::size_t b = a + 1; b < c; ++b) loss[a][b] = loss_of(at[a], at[b]);
  // cost[k][b]: best loss of the first at[b] samples in k segments; cut[k][b] where the last
  // began.
  const std::size_t K = std::max<std::size_t>(1, std::min(n / min_points, c - 1));
  std::vector<std::vector<double>> cost(K + 1, std::vector<double>(c, kInf));
  std::vector<std::vector<std::size_t>> cut(K + 1, std::vector<std::size_t>(c, 0));
  cost[0][0] = 0;
  for (std::size_t k = 1; k <= K; ++k)
    for (std::size_t b = 1; b < c; ++b)
      for (std::size_t a = 0; a < b; ++a) {
        if (!std::isfinite(cost[k - 1][a]) || !std::isfinite(loss[a][b])) continue;
        const double total = cost[k - 1][a] + loss[a][b];
        if (total < cost[k][b]) {
          cost[k][b] = total;
          cut[k][b] = a;
        }
      }
  std::size_t best_k = 1;
  for (std::size_t k = 2; k <= K; ++k)
    if (std::isfinite(cost[k][c - 1]) &&
        criterion(k, cost[k][c - 1]) < criterion(best_k, cost[best_k][c - 1]))
      best_k = k;
  // The segments' bounds in samples: 0, the breakpoints, n.
  std::vector<std::size_t> bounds(best_k + 1, n);
  for (std::size_t k = best_k, b = c - 1; k > 0; --k) {
    b = cut[k][b];
    bounds[k - 1] = at[b];
  }
  if (n > kMaxCuts) {
    // On the coarse grid a switch between two candidates fell inside a segment, or gave one of
    // its own (found by review, 2026-11-28: a 10,000-row log switching between candidates got
    // a third segment across the switch). Each breakpoint moves to its best row within its
    // grid step, then a breakpoint whose removal lowers the criterion goes, until none does.
    const std::size_t step = n / kMaxCuts + 1;
    for (std::size_t i = 1; i + 1 < bounds.size(); ++i) {
      const std::size_t lo =
          std::max(bounds[i - 1] + min_points, bounds[i] > step ? bounds[i] - step : 0);
      const std::size_t hi = std::min(bounds[i + 1] - min_points, bounds[i] + step);
      double best = loss_of(bounds[i - 1], bounds[i]) + loss_of(bounds[i], bounds[i + 1]);
      for (std::size_t p = lo; p <= hi; ++p)
        if (const double t = loss_of(bounds[i - 1], p) + loss_of(p, bounds[i + 1]); t < best) {
          best = t;
          bounds[i] = p;
        }
    }
    for (bool merged = true; merged && bounds.size() > 2;) {
      merged = false;
      double total = 0;
      for (std::size_t i = 0; i + 1 < bounds.size(); ++i)
        total += loss_of(bounds[i], bounds[i + 1]);
      const std::size_t k = bounds.size() - 1;
      double best = criterion(k, total);
      std::size_t drop = 0;
      for (std::size_t i = 1; i + 1 < bounds.size(); ++i) {
        const double without = total - loss_of(bounds[i - 1], bounds[i]) -
                               loss_of(bounds[i], bounds[i + 1]) +
                               loss_of(bounds[i - 1], bounds[i + 1]);
        if (const double crit = criterion(k - 1, without); crit < best) {
          best = crit;
          drop = i;
        }
      }
      if (drop > 0) {
        bounds.erase(bounds.begin() + std::ptrdiff_t(drop));
        merged = true;
      }
    }
  }
  std::vector<LineFit> out;
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
    const auto [a, b] = fit_of(bounds[i], bounds[i + 1]);
    out.push_back(make_fit(samples, bounds[i], bounds[i + 1], a, b));
  }
  return out;
}

double median(std::vector<double> v) {
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double hi = v[mid];
  return (*std::max_element(v.begin(), v.begin() + std::ptrdiff_t(mid)) + hi) / 2;
}

}  // namespace shardsim::calibrate
