#include "simulator/cli/fit_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "calibrate/linear_fit.h"
#include "reports/build_info.h"
#include "reports/report_common.h"

namespace shardsim::cli {

namespace cal = shardsim::calibrate;
using nlohmann::json;

std::string ladder_text(const std::vector<double>& errors) {
  return fmt::format("{} rows off the size ladder held out: median {:.2f}%, max {:.2f}%",
                     errors.size(), cal::median(errors), *std::ranges::max_element(errors));
}

json fit_report_json(const FitNotes& notes, const std::vector<LogReport>& logs,
                     const cal::TopologyFit* topo) {
  json out = {{"schema_version", kReportSchemaVersion},
              {"tool_version", tool_version()},
              {"build", build_json()},
              {"inputs", notes.items},
              {"logs", json::array()}};
  for (const auto& l : logs) {
    json segs = json::array();
    for (const auto& s : l.fit.segments)
      segs.push_back({{"min_bytes", s.entry.min_bytes},
                      {"max_bytes", s.entry.max_bytes},
                      {"alpha_s", s.entry.alpha_s},
                      {"busbw_bytes_per_second", s.entry.busbw_bytes_per_second},
                      {"residual", s.residual},
                      {"rows", s.points}});
    out["logs"].push_back({{"file", l.rows.file},
                           {"op", l.rows.op},
                           {"ranks", l.rows.ranks},
                           {"ranks_per_node", l.rows.ranks_per_node},
                           {"rows", l.rows.bytes.size()},
                           {"residual", l.fit.residual},
                           {"held_out_median_abs_pct_error",
                            l.held_out_pct < 0 ? json(nullptr) : json(l.held_out_pct)},
                           {"segments", segs}});
    if (!l.rows.left_out.empty()) {
      json left = json::array();
      for (const auto& o : l.rows.left_out)
        left.push_back({{"line", o.line},
                        {"seconds", o.seconds},
                        {"larger_line", o.larger_line},
                        {"larger_seconds", o.larger_seconds}});
      out["logs"].back()["left_out"] = left;
    }
    if (!l.rows.repeated.empty()) {
      json repeated = json::array();
      for (const auto& r : l.rows.repeated)
        repeated.push_back({{"line", r.line},
                            {"seconds", r.seconds},
                            {"kept_line", r.kept_line},
                            {"kept_seconds", r.kept_seconds}});
      out["logs"].back()["repeated"] = repeated;
    }
    if (!l.ladder_held_out_pct.empty())
      out["logs"].back()["off_ladder_held_out"] = {
          {"rows", l.ladder_held_out_pct.size()},
          {"median_abs_pct_error", cal::median(l.ladder_held_out_pct)},
          {"max_abs_pct_error", *std::ranges::max_element(l.ladder_held_out_pct)}};
  }
  if (topo) {
    out["topology"] = {{"residual", topo->residual}, {"logs", json::array()}};
    for (const auto& e : topo->errors)
      out["topology"]["logs"].push_back({{"file", e.file},
                                         {"median_abs_pct_error", e.median_pct},
                                         {"max_abs_pct_error", e.max_pct}});
  }
  return out;
}

std::string fit_report_text(const FitNotes& notes, const std::vector<LogReport>& logs,
                            const cal::TopologyFit* topo) {
  std::string t = notes.text;
  for (const auto& l : logs) {
    t += fmt::format(
        "{}: {} {} ranks, {} per node, {} rows, residual {:.1f}%, held-out median "
        "error {}\n",
        l.rows.file, l.rows.op, l.rows.ranks, l.rows.ranks_per_node, l.rows.bytes.size(),
        l.fit.residual * 100, l.held_out_pct < 0 ? "n/a" : fmt::format("{:.2f}%", l.held_out_pct));
    if (!l.ladder_held_out_pct.empty()) t += "  " + ladder_text(l.ladder_held_out_pct) + "\n";
    for (const auto& o : l.rows.left_out)
      t += fmt::format(
          "  line {} left out: {}, over {:g}x the {} of the larger message on line {} (a "
          "stalled run)\n",
          o.line, cal::time_text(o.seconds), cal::kStallFactor, cal::time_text(o.larger_seconds),
          o.larger_line);
    for (const auto& r : l.rows.repeated)
      t += fmt::format("  line {} repeats the size of line {}: {} against {}; the faster is kept\n",
                       r.line, r.kept_line, cal::time_text(r.seconds),
                       cal::time_text(r.kept_seconds));
    // A segment whose time does not grow with size carries kFlatBusbw, which is no rate: the text
    // says "flat" rather than printing it (found by review, 2026-11-28: "100000.00 GB/s").
    for (const auto& s : l.fit.segments)
      t += fmt::format("  {:>12g} - {:<12g} B  alpha {:9.2f} us  busbw {}  residual {:.1f}%\n",
                       s.entry.min_bytes, s.entry.max_bytes, s.entry.alpha_s * 1e6,
                       s.entry.busbw_bytes_per_second >= cal::kFlatBusbw
                           ? std::string("flat (time constant over the segment)")
                           : fmt::format("{:8.2f} GB/s", s.entry.busbw_bytes_per_second / 1e9),
                       s.residual * 100);
  }
  if (topo) {
    t += fmt::format("topology model (all logs jointly): RMS log error {:.3f}\n", topo->residual);
    for (const auto& e : topo->errors)
      t += fmt::format("  {}: median {:.1f}%, max {:.1f}%\n", e.file, e.median_pct, e.max_pct);
  }
  return t;
}

}  // namespace shardsim::cli
