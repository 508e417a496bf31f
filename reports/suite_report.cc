#include "reports/suite_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reports/build_info.h"
#include "reports/report_common.h"

namespace shardsim {
namespace {

using suite::CaseResult;
using suite::ErrorStats;
using suite::GroupSummary;
using suite::Outcome;

// NaN (no prediction) as JSON null.
nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json stats_json(const ErrorStats& s) {
  return {{"count", s.count},
          {"mape_pct", s.mape},
          {"max_abs_pct", s.max_abs},
          {"worst", s.worst},
          {"within_10_pct", s.within_10}};
}

nlohmann::json case_json(const CaseResult& r) {
  nlohmann::json j = {{"id", r.c.id},
                      {"group", suite::group_name(r.c.group)},
                      {"source", r.c.source},
                      {"status", r.c.status},
                      {"file", r.c.file},
                      {"row_index", r.c.row_index},
                      {"description", r.c.description},
                      {"quantity", suite::quantity_name(r.c.quantity)},
                      {"unit", r.c.unit},
                      {"published", r.c.published},
                      {"predicted", number_or_null(r.predicted)},
                      {"outcome", suite::outcome_name(r.outcome)},
                      {"reason", r.reason}};
  const bool compared = std::isfinite(r.predicted);
  j["signed_pct_error"] = compared ? nlohmann::json(r.signed_pct_error) : nlohmann::json(nullptr);
  j["abs_pct_error"] = compared ? nlohmann::json(r.abs_pct_error) : nlohmann::json(nullptr);
  if (r.c.calibration_subset) j["calibration_subset"] = *r.c.calibration_subset;
  if (r.exact) j["exact"] = *r.exact;
  if (!r.profile.empty()) j["profile"] = {{"name", r.profile}, {"fitted", r.profile_fitted}};
  return j;
}

nlohmann::json group_json(const GroupSummary& g) {
  nlohmann::json profiles = nlohmann::json::array();
  for (const auto& [name, fitted] : g.profiles)
    profiles.push_back({{"name", name}, {"fitted", fitted}});
  nlohmann::json j = {
      {"name", suite::group_name(g.group)},
      {"source", suite::group_source(g.group)},
      {"cases", g.cases},
      {"evaluated", g.all.count},
      {"not_evaluated", g.not_evaluated},
      {"all", stats_json(g.all)},
      {"target",
       {{"text", g.target.text},
        {"max_mape_pct", g.target.max_mape >= 0 ? nlohmann::json(g.target.max_mape) : nullptr},
        {"max_abs_pct", g.target.max_abs >= 0 ? nlohmann::json(g.target.max_abs) : nullptr},
        {"exact", g.target.exact}}},
      {"met", g.target.none() ? nlohmann::json(nullptr) : nlohmann::json(g.met)},
      {"profiles", profiles}};
  if (g.calibration) j["calibration_subset"] = stats_json(*g.calibration);
  if (g.held_out) j["held_out"] = stats_json(*g.held_out);
  if (g.target.exact) j["exact"] = g.exact;
  return j;
}

std::string profiles_text(const GroupSummary& g) {
  std::string out;
  for (const auto& [name, fitted] : g.profiles)
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", name,
                       fitted ? "fitted from measurements" : "not fitted: datasheet preset");
  return out;
}

std::string stats_text(const ErrorStats& s) {
  return fmt::format("MAPE {:.1f} %, max {:.1f} % ({}), {} of {} within 10 %", s.mape, s.max_abs,
                     s.worst.empty() ? "-" : s.worst, s.within_10, s.count);
}

std::string case_row(const CaseResult& r) {
  const std::string error =
      std::isfinite(r.predicted) ? fmt::format("{:+8.1f} %", r.signed_pct_error) : "       -  ";
  std::string note;
  if (r.outcome != Outcome::kEvaluated)
    note = fmt::format("  [{}: {}]", suite::outcome_name(r.outcome), r.reason);
  else if (r.exact)
    note = *r.exact ? "  exact" : "  NOT exact";
  return fmt::format("  {:<40} {:>12.6g} {:>12.6g} {:<16} {}  {}{}\n", r.c.id, r.c.published,
                     r.predicted, r.c.unit, error, r.c.description, note);
}

// Every case of a small group; of a large one, the worst few and every case not evaluated or not
// exact.
std::string group_rows(const std::vector<const CaseResult*>& rows) {
  std::vector<const CaseResult*> shown = rows;
  const bool all = int(rows.size()) <= kSuiteTextRowsPerGroup;
  if (!all) {
    std::vector<const CaseResult*> worst;
    shown.clear();
    for (const CaseResult* r : rows) {
      if (r->outcome != Outcome::kEvaluated || (r->exact && !*r->exact))
        shown.push_back(r);
      else
        worst.push_back(r);
    }
    std::stable_sort(worst.begin(), worst.end(), [](const CaseResult* a, const CaseResult* b) {
      return a->abs_pct_error > b->abs_pct_error;
    });
    worst.resize(std::min<std::size_t>(worst.size(), 10));
    shown.insert(shown.end(), worst.begin(), worst.end());
  }
  std::string out = fmt::format("  {:<40} {:>12} {:>12} {:<16} {:>10}  {}\n", "case", "published",
                                "predicted", "unit", "error", "configuration");
  for (const CaseResult* r : shown) out += case_row(*r);
  if (!all)
    out += fmt::format(
        "  ({} cases shown: the 10 worst and any not evaluated or not exact; "
        "--json or --csv lists all {})\n",
        shown.size(), rows.size());
  return out;
}

}  // namespace

const char* met_cell(const suite::GroupSummary& g) {
  if (g.target.none()) return "-";
  return g.met ? "yes" : "no";
}

std::string suite_report_text(const suite::SuiteResult& r) {
  std::string out = fmt::format(
      "shardsim suite: predictions against published runs and closed-form memory cases\n"
      "mode: {} (prediction groups); errors are 100 (predicted - published) / published\n",
      mode_name(r.mode));
  std::size_t k = 0;
  for (const GroupSummary& g : r.groups) {
    std::vector<const CaseResult*> rows;
    for (int i = 0; i < g.cases; ++i) rows.push_back(&r.cases[k++]);
    out += fmt::format("\n== {}: {}\n", suite::group_name(g.group), suite::group_source(g.group));
    if (!g.profiles.empty()) out += fmt::format("   hardware profile: {}\n", profiles_text(g));
    out += group_rows(rows);
    out +=
        fmt::format("  {} cases, {} evaluated, {} not evaluated (listed above with the reason)\n",
                    g.cases, g.all.count, g.not_evaluated);
    out += "  all: " + stats_text(g.all) + "\n";
    if (g.calibration)
      out += "  calibration subset (even rows): " + stats_text(*g.calibration) + "\n";
    if (g.held_out) out += "  held out (odd rows): " + stats_text(*g.held_out) + "\n";
    if (g.target.exact) out += fmt::format("  exact: {} of {}\n", g.exact, g.cases);
    if (g.target.none())
      out += fmt::format("  target: {}\n", g.target.text);
    else
      out += fmt::format("  target: {}: {}\n", g.target.text, g.met ? "met" : "NOT met");
  }
  out += fmt::format("\n{:<12} {:>6} {:>9} {:>8} {:>8}  {:<32} {}\n", "group", "cases", "evaluated",
                     "MAPE %", "max %", "target", "met");
  for (const GroupSummary& g : r.groups)
    out +=
        fmt::format("{:<12} {:>6} {:>9} {:>8.1f} {:>8.1f}  {:<32} {}\n", suite::group_name(g.group),
                    g.cases, g.all.count, g.all.mape, g.all.max_abs, g.target.text, met_cell(g));
  return out;
}

nlohmann::json suite_report_json(const suite::SuiteResult& r) {
  nlohmann::json groups = nlohmann::json::array(), cases = nlohmann::json::array();
  for (const GroupSummary& g : r.groups) groups.push_back(group_json(g));
  for (const CaseResult& c : r.cases) cases.push_back(case_json(c));
  return {{"schema_version", kSuiteReportSchemaVersion},
          {"tool_version", tool_version()},
          {"build", build_json()},
          {"suite",
           {{"mode", mode_name(r.mode)},
            {"calibration_rule",
             "vTrain rows whose 0-based data-row index is even form the calibration subset "
             "(suite::vtrain_calibration_row); odd rows are held out"},
            {"all_targets_met", r.all_targets_met()},
            {"groups", groups},
            {"cases", cases}}}};
}

std::string suite_report_csv(const suite::SuiteResult& r) {
  std::string out =
      "id,group,outcome,quantity,unit,published,predicted,signed_pct_error,abs_pct_error,"
      "calibration_subset,exact,description,reason\n";
  for (const CaseResult& c : r.cases) {
    const bool compared = std::isfinite(c.predicted);
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_quoted(c.c.id),
                       suite::group_name(c.c.group), suite::outcome_name(c.outcome),
                       suite::quantity_name(c.c.quantity), csv_quoted(c.c.unit),
                       csv_number(c.c.published), csv_number(c.predicted),
                       compared ? csv_number(c.signed_pct_error) : "",
                       compared ? csv_number(c.abs_pct_error) : "",
                       c.c.calibration_subset ? (*c.c.calibration_subset ? "true" : "false") : "",
                       c.exact ? (*c.exact ? "true" : "false") : "", csv_quoted(c.c.description),
                       csv_quoted(c.reason));
  }
  return out;
}

}  // namespace shardsim
