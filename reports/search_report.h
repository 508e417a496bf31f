// The report of `shardsim search`: the top plans (memory, step time, throughput as in simulate
// reports) and how many plans were considered and dropped, by reason; JSON (SI units), text, CSV.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simulator/evaluate/search.h"

namespace shardsim {

[[nodiscard]] nlohmann::json search_report_json(const SearchResult& r, const Scenario& s);
[[nodiscard]] std::string search_report_text(const SearchResult& r, const Scenario& s);
[[nodiscard]] std::string search_report_csv(const SearchResult& r);

}  // namespace shardsim
