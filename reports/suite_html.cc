// `suite --html` (html_report.h): the group table and one parity chart per prediction group.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reports/html_page.h"
#include "reports/html_report.h"
#include "reports/report_common.h"
#include "reports/suite_report.h"

namespace shardsim {
namespace {

using html::legend;
using html::page;
using html::svg_open;

// Predicted against published, log-log, with y = x and the +-10 % lines.
std::string parity_chart(const std::vector<const suite::CaseResult*>& cases,
                         const std::string& unit) {
  const double w = 480, h = 440, left = 70, top = 10, plot = 360;
  std::string out = svg_open(w, h, "predicted against published");
  double lo = 1e300, hi = 0;
  for (const auto* c : cases)
    for (double v : {c->c.published, c->predicted})
      if (v > 0 && std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
  if (!(hi > 0)) return out + "<text x=\"10\" y=\"20\">no evaluated case</text></svg>\n";
  lo /= 1.2;
  hi *= 1.2;
  const double llo = std::log10(lo), lhi = std::log10(hi);
  auto pos = [&](double v) { return plot * (std::log10(v) - llo) / (lhi - llo); };
  auto px = [&](double v) { return left + pos(v); };
  auto py = [&](double v) { return top + plot - pos(v); };
  out += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
      "stroke=\"#ccc\"/>\n",
      left, top, plot, plot);
  // y = f x inside the frame: from x = max(lo, lo / f) to min(hi, hi / f).
  for (double f : {1.0, 1.1, 1 / 1.1}) {
    const double x0 = std::max(lo, lo / f), x1 = std::min(hi, hi / f);
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"{}\"{}/>\n",
        px(x0), py(x0 * f), px(x1), py(x1 * f), f == 1.0 ? "#555" : "#aaa",
        f == 1.0 ? "" : " stroke-dasharray=\"4,3\"");
  }
  for (const auto* c : cases) {
    if (!(c->predicted > 0) || !std::isfinite(c->predicted) || !(c->c.published > 0)) continue;
    const bool held_out = c->c.calibration_subset && !*c->c.calibration_subset;
    out += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\" "
        "fill-opacity=\"0.6\"><title>{}: published {:.4g}, predicted {:.4g} "
        "({:+.1f} %)</title></circle>\n",
        px(c->c.published), py(c->predicted), held_out ? "#e15759" : "#4e79a7",
        html_escape(c->c.id), c->c.published, c->predicted, c->signed_pct_error);
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\">published ({}), {:.3g} to {:.3g}, log scale</text>"
      "<text x=\"4\" y=\"{}\">predicted</text>\n",
      left, top + plot + 18, html_escape(unit), lo, hi, top + 10);
  out += legend(left, top + plot + 30,
                {{"case", "#4e79a7"},
                 {"vTrain held-out row", "#e15759"},
                 {"y = x", "#555"},
                 {"+-10 %", "#aaa"}},
                2);  // two per row: four would run past the 480-pixel chart
  return out + "</svg>\n";
}

}  // namespace

std::string suite_html(const suite::SuiteResult& r) {
  std::string body = fmt::format(
      "<p class=\"note\">{} model; error = 100 (predicted - published) / published</p>\n"
      "<table><tr><th class=\"l\">group</th><th>cases</th><th>evaluated</th><th>MAPE %</th>"
      "<th>max %</th><th class=\"l\">target</th><th class=\"l\">met</th></tr>\n",
      mode_name(r.mode));
  for (const auto& g : r.groups)
    body += fmt::format(
        "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{:.1f}</td>"
        "<td>{:.1f}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>\n",
        suite::group_name(g.group), g.cases, g.all.count, g.all.mape, g.all.max_abs,
        html_escape(g.target.text), met_cell(g));
  body += "</table>\n";
  for (const auto& g : r.groups) {
    if (g.group == suite::Group::kMemory) continue;  // exact cases: the table says it
    std::vector<const suite::CaseResult*> cases;
    std::string unit;
    for (const auto& c : r.cases)
      if (c.c.group == g.group && c.outcome == suite::Outcome::kEvaluated) {
        cases.push_back(&c);
        unit = c.c.unit;
      }
    body += fmt::format(
        "<h2>{}: predicted against published</h2><p class=\"note\">{}; MAPE "
        "{:.1f} %, max {:.1f} %</p>\n",
        suite::group_name(g.group), html_escape(suite::group_source(g.group)), g.all.mape,
        g.all.max_abs);
    body += parity_chart(cases, unit);
  }
  return page("shardsim suite: predictions against published runs", body);
}

}  // namespace shardsim
