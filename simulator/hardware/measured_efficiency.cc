// Measured-table lookups (contracts and formulas in measured_efficiency.h).
#include "simulator/hardware/measured_efficiency.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace shardsim {
namespace {

using Point3 = std::array<double, 3>;

Point3 log2_shape(double m, double n, double k) {
  return {std::log2(m), std::log2(n), std::log2(k)};
}

double squared_distance(const Point3& a, const Point3& b) {
  double d = 0;
  for (std::size_t i = 0; i < 3; ++i) d += (a[i] - b[i]) * (a[i] - b[i]);
  return d;
}

// The kNearestGemmPoints nearest points, ascending (distance, table position): ties keep table
// order, as a stable sort of the whole table by distance would, whichever order points are offered.
class Nearest {
 public:
  void offer(double distance2, std::size_t point, double efficiency) {
    const Candidate cand{distance2, point, efficiency};
    std::size_t i = std::min<std::size_t>(count_, kNearestGemmPoints);
    if (i == kNearestGemmPoints && !before(cand, near_[i - 1])) return;
    if (i == kNearestGemmPoints) --i;  // the last one drops out
    while (i > 0 && before(cand, near_[i - 1])) {
      near_[i] = near_[i - 1];
      --i;
    }
    near_[i] = cand;
    count_ = std::min<std::size_t>(count_ + 1, kNearestGemmPoints);
  }
  // True once kNearestGemmPoints are held and every one is nearer than `distance2` (so no point
  // at least that far can enter).
  [[nodiscard]] bool full_and_nearer_than(double distance2) const {
    return count_ == kNearestGemmPoints && near_[count_ - 1].distance2 < distance2;
  }
  // eff of the exact match, else sum w_i eff_i / sum w_i, w_i = 1 / d_i^2.
  [[nodiscard]] double efficiency() const {
    if (near_[0].distance2 < 1e-18) return near_[0].efficiency;
    double weighted = 0, weights = 0;
    for (std::size_t i = 0; i < count_; ++i) {
      weighted += near_[i].efficiency / near_[i].distance2;
      weights += 1 / near_[i].distance2;
    }
    return weighted / weights;
  }

 private:
  struct Candidate {
    double distance2 = 0;
    std::size_t point = 0;
    double efficiency = 0;
  };
  static bool before(const Candidate& a, const Candidate& b) {
    return a.distance2 < b.distance2 || (a.distance2 == b.distance2 && a.point < b.point);
  }
  std::array<Candidate, kNearestGemmPoints> near_{};
  std::size_t count_ = 0;
};

// Clamps (m, n, k) per axis to [lo, hi], to the boundary's own dimension (not exp2 of its
// logarithm, which may miss the integer).
std::array<double, 3> clamp_shape(double m, double n, double k, const Point3& lo,
                                  const Point3& hi) {
  std::array<double, 3> shape = {m, n, k};
  for (std::size_t a = 0; a < 3; ++a) shape[a] = std::clamp(shape[a], lo[a], hi[a]);
  return shape;
}

// The lookup without an index: two passes over the whole table.
std::optional<double> scan_table(const ComputeModel& c, double m, double n, double k,
                                 const std::string& want, std::array<double, 3>* clamped) {
  bool any = false;
  Point3 lo{}, hi{};  // the points' own dimensions (not logarithms)
  for (const auto& p : c.gemm_points) {
    if (p.dtype != want) continue;
    const Point3 d = {p.m, p.n, p.k};
    for (std::size_t a = 0; a < 3; ++a) {
      lo[a] = any ? std::min(lo[a], d[a]) : d[a];
      hi[a] = any ? std::max(hi[a], d[a]) : d[a];
    }
    any = true;
  }
  if (!any) return std::nullopt;
  const auto shape = clamp_shape(m, n, k, lo, hi);
  if (clamped) *clamped = shape;
  const Point3 x = log2_shape(shape[0], shape[1], shape[2]);
  Nearest near;
  for (std::size_t j = 0; j < c.gemm_points.size(); ++j) {
    const auto& p = c.gemm_points[j];
    if (p.dtype == want)
      near.offer(squared_distance(x, log2_shape(p.m, p.n, p.k)), j, p.efficiency);
  }
  return near.efficiency();
}

// The lookup through the index: from the query's place in the log2 m order outwards, each side
// stopping once its m distance alone exceeds the farthest of the nearest points held.
std::optional<double> search_index(const ComputeModel& c, double m, double n, double k,
                                   const std::string& want, std::array<double, 3>* clamped) {
  const auto& tables = c.gemm_point_logs.tables;
  const auto t = std::ranges::find(tables, want, &GemmPointLogs::Table::dtype);
  if (t == tables.end()) return std::nullopt;
  const auto shape = clamp_shape(m, n, k, t->lo, t->hi);
  if (clamped) *clamped = shape;
  const Point3 x = log2_shape(shape[0], shape[1], shape[2]);
  const auto& e = t->by_m;
  Nearest near;
  auto offer = [&](const GemmPointLogs::Entry& p) {
    near.offer(squared_distance(x, {p.log2_m, p.log2_n, p.log2_k}), p.point,
               c.gemm_points[p.point].efficiency);
  };
  const auto mid = std::ranges::lower_bound(e, x[0], {}, &GemmPointLogs::Entry::log2_m);
  auto up = mid;
  auto down = mid;
  bool up_open = up != e.end(), down_open = down != e.begin();
  while (up_open || down_open) {
    if (up_open) {
      const double dm = up->log2_m - x[0];
      if (near.full_and_nearer_than(dm * dm)) {
        up_open = false;
      } else {
        offer(*up);
        up_open = ++up != e.end();
      }
    }
    if (down_open) {
      const double dm = x[0] - std::prev(down)->log2_m;
      if (near.full_and_nearer_than(dm * dm)) {
        down_open = false;
      } else {
        offer(*--down);
        down_open = down != e.begin();
      }
    }
  }
  return near.efficiency();
}

}  // namespace

void index_gemm_points(ComputeModel& c) {
  auto& index = c.gemm_point_logs;
  index.tables.clear();
  for (std::size_t j = 0; j < c.gemm_points.size(); ++j) {
    const auto& p = c.gemm_points[j];
    auto t = std::ranges::find(index.tables, p.dtype, &GemmPointLogs::Table::dtype);
    if (t == index.tables.end()) {
      index.tables.push_back({p.dtype, {p.m, p.n, p.k}, {p.m, p.n, p.k}, {}});
      t = std::prev(index.tables.end());
    }
    const Point3 d = {p.m, p.n, p.k};
    for (std::size_t a = 0; a < 3; ++a) {
      t->lo[a] = std::min(t->lo[a], d[a]);
      t->hi[a] = std::max(t->hi[a], d[a]);
    }
    const Point3 l = log2_shape(p.m, p.n, p.k);
    t->by_m.push_back({l[0], l[1], l[2], j});
  }
  for (auto& t : index.tables)
    std::ranges::sort(t.by_m, [](const GemmPointLogs::Entry& a, const GemmPointLogs::Entry& b) {
      return a.log2_m < b.log2_m || (a.log2_m == b.log2_m && a.point < b.point);
    });
  index.points = c.gemm_points.size();
}

std::optional<double> measured_gemm_efficiency(const ComputeModel& c, double m, double n, double k,
                                               Dtype dtype, std::array<double, 3>* clamped) {
  // Allocation-free: this runs for every GEMM a plan prices.
  const std::string want = dtype_name(dtype);  // short: no allocation
  if (c.gemm_point_logs.points == c.gemm_points.size() && !c.gemm_points.empty())
    return search_index(c, m, n, k, want, clamped);
  return scan_table(c, m, n, k, want, clamped);
}

double memory_bound_efficiency(const ComputeModel& c, double bytes, MemoryKernel kernel,
                               bool* measured) {
  if (measured != nullptr) *measured = false;
  const std::string_view name = memory_kernel_name(kernel);
  const auto of = [&c](std::string_view k) {
    return std::ranges::any_of(c.memory_bound_points,
                               [k](const MemoryBoundPoint& p) { return p.kernel == k; });
  };
  const std::string_view curve = !name.empty() && of(name) ? name : std::string_view{};
  if (curve.empty() && !of(curve)) return c.memory_bound_efficiency;
  // The neighbours of `bytes` on the curve (points of one kernel ascend in bytes).
  const MemoryBoundPoint *lo = nullptr, *hi = nullptr;
  for (const auto& p : c.memory_bound_points) {
    if (p.kernel != curve) continue;
    if (p.bytes <= bytes) lo = &p;
    if (p.bytes >= bytes && hi == nullptr) hi = &p;
  }
  if (lo == nullptr && hi == nullptr) return c.memory_bound_efficiency;  // bytes is NaN
  if (measured != nullptr) *measured = true;
  if (lo == nullptr) return hi->efficiency;  // below the first point
  if (hi == nullptr || hi == lo) return lo->efficiency;
  // t = (ln bytes - ln b_lo) / (ln b_hi - ln b_lo); eff = eff_lo + t (eff_hi - eff_lo)
  const double t = std::log(bytes / lo->bytes) / std::log(hi->bytes / lo->bytes);
  return lo->efficiency + t * (hi->efficiency - lo->efficiency);
}

namespace {

// One head dimension's curve at `seq`: piecewise linear in ln(seq) between the neighbouring points,
// clamped outside; returns {efficiency, seq used, ln batch_heads}. REQUIRES: the curve has a point.
std::array<double, 3> attention_curve(const ComputeModel& c, std::string_view kernel, double seq,
                                      double head_dim, bool causal) {
  const AttentionPoint *lo = nullptr, *hi = nullptr, *first = nullptr;
  for (const auto& p : c.attention_points) {
    if (p.causal != causal || p.head_dim != head_dim || p.kernel != kernel) continue;
    if (first == nullptr || p.seq < first->seq) first = &p;
    if (p.seq <= seq && (lo == nullptr || p.seq > lo->seq)) lo = &p;
    if (p.seq >= seq && (hi == nullptr || p.seq < hi->seq)) hi = &p;
  }
  const auto at = [](const AttentionPoint& p) {
    return std::array<double, 3>{p.efficiency, p.seq, std::log(p.batch_heads)};
  };
  if (lo == nullptr) return at(*first);                     // below the first point
  if (hi == nullptr || hi->seq == lo->seq) return at(*lo);  // above the last point, or on one
  // t = (ln seq - ln seq_lo) / (ln seq_hi - ln seq_lo); each value = lo + t (hi - lo)
  const double t = std::log(seq / lo->seq) / std::log(hi->seq / lo->seq);
  const auto a = at(*lo), b = at(*hi);
  return {a[0] + t * (b[0] - a[0]), seq, a[2] + t * (b[2] - a[2])};
}

}  // namespace

std::optional<AttentionEfficiency> measured_attention_efficiency(const ComputeModel& c,
                                                                 std::string_view kernel,
                                                                 double seq, double head_dim,
                                                                 bool causal) {
  // The measured head dimensions around head_dim (clamped to the measured range).
  double below = 0, above = 0, least = 0, most = 0;
  for (const auto& p : c.attention_points) {
    if (p.causal != causal || p.kernel != kernel) continue;
    if (least == 0 || p.head_dim < least) least = p.head_dim;
    if (most == 0 || p.head_dim > most) most = p.head_dim;
    if (p.head_dim <= head_dim && p.head_dim > below) below = p.head_dim;
    if (p.head_dim >= head_dim && (above == 0 || p.head_dim < above)) above = p.head_dim;
  }
  if (least == 0) return std::nullopt;
  if (below == 0) below = above = least;  // below the smallest measured head dimension
  if (above == 0) above = below = most;   // above the largest
  const auto a = attention_curve(c, kernel, seq, below, causal);
  const auto b = attention_curve(c, kernel, seq, above, causal);
  // u = (ln d - ln d_below) / (ln d_above - ln d_below), 0 when both are the same head dimension
  const double u = above == below ? 0 : std::log(head_dim / below) / std::log(above / below);
  const auto mix = [u](double x, double y) { return x + u * (y - x); };
  return AttentionEfficiency{mix(a[0], b[0]), mix(a[1], b[1]), std::exp(mix(a[2], b[2]))};
}

}  // namespace shardsim
