// `--html FILE`: one self-contained HTML page per report (inline CSS and SVG; no scripts, no
// external resources), for people: memory per pipeline stage as stacked bars against the
// capacity line; the step-time breakdown; the pipeline timeline of one step (a row per stage:
// forward, backward, weight-gradient and communication coloured, idle time visible); for search
// and compare a throughput-vs-memory scatter with the Pareto front marked.
#pragma once

#include <string>

#include "simulator/evaluate/estimate.h"
#include "simulator/evaluate/search.h"
#include "simulator/evaluate/variants.h"
#include "simulator/suite/suite.h"

namespace shardsim {

// memory / simulate: the memory chart; with a step time, the breakdown; with a DES timeline
// (Estimate::timeline), the pipeline timeline.
[[nodiscard]] std::string estimate_html(const Estimate& e, const std::string& title);
[[nodiscard]] std::string compare_html(const Comparison& c, const std::string& scenario);
[[nodiscard]] std::string search_html(const SearchResult& r, const Scenario& s);

// `suite --html`: per prediction group, predicted against published on log-log axes with the
// y = x line and the +-10 % band, vTrain's held-out rows marked apart; then the group table.
[[nodiscard]] std::string suite_html(const suite::SuiteResult& r);

// The text with & < > " escaped for HTML.
[[nodiscard]] std::string html_escape(const std::string& text);

}  // namespace shardsim
