// The rows a collective fit keeps and refuses (collective_fit.h): a size measured twice, a stalled
// row beside a larger message, and a row or segment the fit does not represent. nccl-tests logs,
// collective tables and calibration samples alike.
#include "calibrate/collective_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace shardsim::calibrate {

void keep_fastest_of_repeats(MeasuredCollective& m) {
  std::vector<std::size_t> order(m.bytes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::ranges::stable_sort(order, {}, [&](std::size_t i) { return m.bytes[i]; });
  MeasuredCollective kept;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t end = i, best = order[i];
    for (; end < order.size() && m.bytes[order[end]] == m.bytes[order[i]]; ++end)
      if (m.seconds[order[end]] < m.seconds[best]) best = order[end];
    for (std::size_t j = i; j < end; ++j)
      if (order[j] != best)
        m.repeated.push_back(
            {m.lines[order[j]], m.seconds[order[j]], m.lines[best], m.seconds[best]});
    kept.bytes.push_back(m.bytes[best]);
    kept.seconds.push_back(m.seconds[best]);
    kept.lines.push_back(m.lines[best]);
    i = end;
  }
  m.bytes = std::move(kept.bytes);
  m.seconds = std::move(kept.seconds);
  m.lines = std::move(kept.lines);
  std::ranges::sort(m.repeated, {}, &MeasuredCollective::Repeated::line);
}

void leave_out_stalled(MeasuredCollective& m) {
  // A row over kStallFactor x slower than a larger message (the fastest larger one) is left
  // out of the fit: in a sparse sweep it would make a segment of its own (found by review,
  // 2026-11-27: one stalled row of a 10-row log gave a segment with a -107 ms intercept, 100x
  // too slow, and a 110x drop at its end).
  std::vector<bool> keep(m.bytes.size(), true);
  std::size_t fastest = m.bytes.size();  // index of the fastest larger row so far
  for (std::size_t i = m.bytes.size(); i-- > 0;) {
    if (fastest < m.bytes.size() && m.seconds[i] > kStallFactor * m.seconds[fastest]) {
      keep[i] = false;
      m.left_out.push_back({m.lines[i], m.seconds[i], m.lines[fastest], m.seconds[fastest]});
      continue;
    }
    if (fastest == m.bytes.size() || m.seconds[i] < m.seconds[fastest]) fastest = i;
  }
  std::ranges::reverse(m.left_out);  // in file order
  std::size_t out = 0;
  for (std::size_t i = 0; i < m.bytes.size(); ++i)
    if (keep[i]) {
      m.bytes[out] = m.bytes[i];
      m.seconds[out] = m.seconds[i];
      m.lines[out] = m.lines[i];
      ++out;
    }
  m.bytes.resize(out);
  m.seconds.resize(out);
  m.lines.resize(out);
}

std::string row_place(int row, bool items) {
  return items ? fmt::format(" items[{}]", row - 1) : fmt::format(":{}", row);
}

std::string time_text(double seconds) {
  return seconds < 10 ? fmt::format("{:.1f} us", seconds * 1e6) : fmt::format("{:.4g} s", seconds);
}

std::string segment_range_error(const MeasuredCollective& m, const CollectiveFit& fit, bool items) {
  if (fit.segments.empty()) return "";
  // A segment whose intercept a profile cannot hold (hardware_tables.cc: alpha_s within +-10 s):
  // its rows are no one regime. Named by its rows here; the reader's refusal named a segment
  // index of the written network (found by review, 2026-11-29).
  constexpr double kMaxInterceptSeconds = 10;
  for (const auto& s : fit.segments)
    if (std::fabs(s.entry.alpha_s) > kMaxInterceptSeconds) {
      std::size_t first = 0, last = 0;
      for (std::size_t i = 0; i < m.bytes.size(); ++i) {
        if (m.bytes[i] < s.entry.min_bytes) first = i + 1;
        if (m.bytes[i] <= s.entry.max_bytes) last = i;
      }
      const auto at = [&](std::size_t i) {
        return items ? fmt::format("items[{}]", m.lines[i] - 1)
                     : fmt::format("line {}", m.lines[i]);
      };
      return fmt::format(
          "{}: {} on {} ranks, {} to {}: these rows fit a line with an intercept of {:.4g} s, "
          "beyond the +-{:g} s a profile holds: they are no one regime (a stalled or mistyped "
          "run?); rerun them or remove the row that stands out",
          m.file, m.op, m.ranks, at(std::min(first, last)), at(last), s.entry.alpha_s,
          kMaxInterceptSeconds);
    }
  return "";
}

std::string unfitted_row_error(const MeasuredCollective& m, const CollectiveFit& fit, bool items) {
  if (fit.segments.empty()) return "";
  for (std::size_t i = 0; i < m.bytes.size(); ++i) {
    const double fitted = predict_fitted(fit.segments, m.bytes[i]);
    const double ratio = m.seconds[i] / fitted;
    if (ratio <= kUnfittedFactor && ratio >= 1 / kUnfittedFactor) continue;
    return fmt::format(
        "{}{}: {} of {:g} B on {} ranks took {}, but the fit of its group gives {}, {:.3g}x {}: "
        "the row is far from every other (a stalled or mistyped run?); rerun it or remove the row",
        m.file, row_place(m.lines[i], items), m.op, m.bytes[i], m.ranks, time_text(m.seconds[i]),
        time_text(fitted), ratio > 1 ? ratio : 1 / ratio, ratio > 1 ? "less" : "more");
  }
  return "";
}

}  // namespace shardsim::calibrate
