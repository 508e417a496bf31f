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

// Weighted least squares on [lo, hi): returns (a, b) with a, b >= 0.
std::pair<double, double> solve(const std::vector<Sample>& s, std::size_t lo, std::size_t hi) {
  double sw = 0, swx = 0, swxx = 0, swt = 0, swxt = 0;
  for (std::size_t i = lo; i < hi; ++i) {
    const double w = 1 / (s[i].t * s[i].t);
    sw += w;
    swx += w * s[i].x;
    swxx += w * s[i].x * s[i].x;
    swt += w * s[i].t;
    swxt += w * s[i].x * s[i].t;
  }
  const double det = sw * swxx - swx * swx;
  double a = det > 0 ? (swt * swxx - swx * swxt) / det : swt / sw;
  double b = det > 0 ? (sw * swxt - swx * swt) / det : 0;
  if (a < 0) {  // through the origin: minimise sum w (b x - t)^2 -> b = S_wxt / S_wxx
    a = 0;
    b = swxx > 0 ? swxt / swxx : 0;
  }
  if (b < 0) {  // flat: a = S_wt / S_w
    b = 0;
    a = swt / sw;
  }
  return {a, b};
}

LineFit make_fit(const std::vector<Sample>& s, std::size_t lo, std::size_t hi) {
  const auto [a, b] = solve(s, lo, hi);
  LineFit f;
  f.alpha = a;
  f.beta = b > 0 ? 1 / b : kInf;
  f.x_min = s[lo].x;
  f.x_max = s[hi - 1].x;
  f.points = hi - lo;
  f.residual = std::sqrt(sse(s, lo, hi, a, b) / double(hi - lo));
  return f;
}

}  // namespace

double LineFit::predict(double x) const {
  return alpha + (std::isinf(beta) ? 0.0 : x / beta);
}

LineFit fit_line(const std::vector<Sample>& samples) {
  return make_fit(samples, 0, samples.size());
}

std::vector<LineFit> fit_segments(const std::vector<Sample>& samples, int max_segments,
                                  std::size_t min_points, double penalty) {
  const std::size_t n = samples.size();
  // cost[k][j]: best error of the first j samples in k segments; cut[k][j] where the last began.
  const std::size_t K = std::size_t(std::max(1, max_segments));
  std::vector<std::vector<double>> cost(K + 1, std::vector<double>(n + 1, kInf));
  std::vector<std::vector<std::size_t>> cut(K + 1, std::vector<std::size_t>(n + 1, 0));
  cost[0][0] = 0;
  for (std::size_t k = 1; k <= K; ++k)
    for (std::size_t j = k * min_points; j <= n; ++j)
      for (std::size_t i = (k - 1) * min_points; i + min_points <= j; ++i) {
        if (!std::isfinite(cost[k - 1][i])) continue;
        const auto [a, b] = solve(samples, i, j);
        const double c = cost[k - 1][i] + sse(samples, i, j, a, b);
        if (c < cost[k][j]) {
          cost[k][j] = c;
          cut[k][j] = i;
        }
      }
  std::size_t best_k = 1;
  for (std::size_t k = 2; k <= K; ++k)
    if (cost[k][n] + penalty * double(k - 1) < cost[best_k][n] + penalty * double(best_k - 1))
      best_k = k;
  std::vector<LineFit> out(best_k);
  for (std::size_t k = best_k, j = n; k > 0; --k) {
    const std::size_t i = cut[k][j];
    out[k - 1] = make_fit(samples, i, j);
    j = i;
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
