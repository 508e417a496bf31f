#include "calibrate/nelder_mead.h"

#include <algorithm>
#include <numeric>

namespace shardsim::calibrate {
namespace {

using Point = std::vector<double>;
using Fn = std::function<double(const Point&)>;

struct Simplex {
  std::vector<Point> points;
  std::vector<double> values;
};

// a + t (b - a)
Point along(const Point& a, const Point& b, double t) {
  Point p(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) p[i] = a[i] + t * (b[i] - a[i]);
  return p;
}

void sort_simplex(Simplex& s) {
  std::vector<std::size_t> order(s.points.size());
  std::iota(order.begin(), order.end(), 0);
  std::ranges::stable_sort(order,
                           [&](std::size_t a, std::size_t b) { return s.values[a] < s.values[b]; });
  Simplex sorted;
  for (auto i : order) {
    sorted.points.push_back(s.points[i]);
    sorted.values.push_back(s.values[i]);
  }
  s = std::move(sorted);
}

// Centroid of all points but the worst (the last after sorting).
Point centroid(const Simplex& s) {
  const std::size_t n = s.points.size() - 1;
  Point c(s.points[0].size(), 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < c.size(); ++j) c[j] += s.points[i][j] / double(n);
  return c;
}

// One Nelder-Mead step on a sorted simplex; returns evaluations used.
int step_once(Simplex& s, const Fn& f) {
  const std::size_t w = s.points.size() - 1;
  const Point c = centroid(s);
  const Point r = along(c, s.points[w], -1.0);  // reflection
  const double fr = f(r);
  if (fr < s.values[0]) {
    const Point e = along(c, s.points[w], -2.0);  // expansion
    const double fe = f(e);
    s.points[w] = fe < fr ? e : r;
    s.values[w] = std::min(fe, fr);
    return 2;
  }
  if (fr < s.values[w - 1]) {
    s.points[w] = r;
    s.values[w] = fr;
    return 1;
  }
  const Point k = along(c, fr < s.values[w] ? r : s.points[w], 0.5);  // contraction
  const double fk = f(k);
  if (fk < std::min(fr, s.values[w])) {
    s.points[w] = k;
    s.values[w] = fk;
    return 2;
  }
  for (std::size_t i = 1; i <= w; ++i) {  // shrink towards the best point
    s.points[i] = along(s.points[0], s.points[i], 0.5);
    s.values[i] = f(s.points[i]);
  }
  return 2 + int(w);
}

MinimizeResult run(const Fn& f, const Point& start, const Point& step, int budget,
                   double tolerance) {
  Simplex s{{start}, {f(start)}};
  for (std::size_t i = 0; i < start.size(); ++i) {
    Point p = start;
    p[i] += step[i];
    s.points.push_back(p);
    s.values.push_back(f(p));
  }
  int used = int(s.points.size());
  sort_simplex(s);
  while (used < budget && s.values.back() - s.values.front() > tolerance) {
    used += step_once(s, f);
    sort_simplex(s);
  }
  return {s.points[0], s.values[0], used};
}

}  // namespace

MinimizeResult nelder_mead(const Fn& f, const Point& start, const Point& step, int max_evaluations,
                           double tolerance) {
  MinimizeResult first = run(f, start, step, max_evaluations / 2, tolerance);
  MinimizeResult second = run(f, first.x, step, max_evaluations - first.evaluations, tolerance);
  second.evaluations += first.evaluations;
  return second.value <= first.value ? second : first;
}

}  // namespace shardsim::calibrate
