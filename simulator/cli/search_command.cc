#include "simulator/cli/search_command.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reports/html_report.h"
#include "reports/output.h"
#include "reports/search_report.h"
#include "simulator/cli/progress.h"
#include "simulator/cli/search_mpi.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/evaluate/evaluate.h"
#include "simulator/evaluate/search.h"
#include "simulator/scenario/load.h"

namespace shardsim::cli {

int run_search(const SearchArgs& a) {
  check_outputs(outputs_of(a.common, {{"--csv", a.csv}}), inputs_of(a.common));
  // The plan is what search replaces: the scenario's own may be one that cannot run.
  const Scenario s = load_scenario(a.common.scenario, a.common.overrides, PlanChecks::kCluster);
  check_outputs_not_inputs(outputs_of(a.common, {{"--csv", a.csv}}), s.files_read);
  SearchOptions o;
  o.threads = a.threads > 0 ? a.threads : std::max(1, int(std::thread::hardware_concurrency()));
  o.top_k = a.top;
  o.points = !a.common.html.empty();  // the page's scatter shows every plan that runs
  // A key set with --set is pinned, and so is each key of a section set whole (`--set
  // 'parallel={"zero":3}'` pins parallel.zero); set to null a key is removed from the scenario
  // (back to shardsim's default) and free again (found by README audit and review, 2026-11-29:
  // parallel.zero=null pinned the default, 1,960 of 10,540 plans for llama3-8b-8xh100, and a
  // section set whole pinned nothing).
  const std::function<void(const std::string&, const nlohmann::json&)> pin =
      [&](const std::string& key, const nlohmann::json& value) {
        std::erase_if(o.pinned,
                      [&](const std::string& p) { return p == key || p.starts_with(key + "."); });
        if (value.is_object())
          for (const auto& [k, v] : value.items()) pin(key + "." + k, v);
        else if (!value.is_null())
          o.pinned.push_back(key);
      };
  for (const auto& set : a.common.overrides) {
    const std::size_t eq = set.find('=');
    const auto value = nlohmann::json::parse(
        eq == std::string::npos ? std::string() : set.substr(eq + 1), nullptr, false);
    // A bare word (a string --set accepts) does not parse: pinned as it is.
    pin(set.substr(0, eq), value.is_discarded() ? nlohmann::json("") : value);
  }
  // Progress on stderr only when it is a terminal (CI logs and pipes stay clean).
  // Under mpirun/srun: this rank's share of the space; rank 0 ranks and writes (search_mpi.h).
  const std::unique_ptr<SearchSplit> split = split_search_over_ranks(o, a.threads > 0);
  if (progress_wanted() && (!split || split->rank() == 0))
    o.progress = [](std::size_t done, std::size_t total) {
      std::fprintf(stderr, "\rsearch: %zu of %zu plans evaluated", done, total);
      if (done == total) std::fprintf(stderr, "\n");
    };
  // Under MPI a failure on one rank ends the job (the others would wait in the gather).
  std::optional<SearchResult> result;
  if (!split) {
    result = search_plans(s, o);
  } else {
    try {
      result = search_plans(s, o);
    } catch (const InputError& e) {
      split->abort_job(kExitBadInput, e.what());
    } catch (const std::exception& e) {
      split->abort_job(kExitRuntime, std::string("error: internal failure: ") + e.what());
    }
  }
  const SearchResult& r = *result;
  if (r.considered == 0) {
    // Nothing to search: the pinned keys leave no plan (tp 3 on 8 GPUs, say). The scenario's own
    // checks name the field; every rank of a split search sees the same empty space.
    (void)load_scenario(a.common.scenario, a.common.overrides);
    throw InputError("",
                     "no plan is left to search: the keys pinned with --set or the scenario's "
                     "search section exclude every one (e.g. a tp that does not divide the GPUs)");
  }
  if (!o.finish) return kExitOk;
  // Every plan refused by the scenario's rules (ep on a dense model, vpp with pp 1): the search
  // section or the pins contradict the scenario, as when they leave no plan at all (found by
  // review, 2026-11-28: exit 0 with "no plan of the space can run"). Plans that are valid but do
  // not fit keep the report: that is an answer.
  const bool all_invalid =
      r.feasible == 0 && !r.infeasible.empty() &&
      std::all_of(r.infeasible.begin(), r.infeasible.end(),
                  [](const auto& kv) { return kv.first.rfind("invalid ", 0) == 0; });
  if (all_invalid) {
    std::string why;
    for (const auto& [reason, count] : r.infeasible)
      why += fmt::format("{}{} ({} plans)", why.empty() ? "" : ", ", reason.substr(8), count);
    // The first plan's own error says why (found by review, 2026-11-28: only the field was named).
    std::string first;
    if (const auto space = enumerate_candidates(s, o.pinned); !space.empty()) {
      Scenario one = s;
      apply(space.front(), one);
      if (const Expected<Estimate> e = evaluate(one, {}); !e.ok())
        first = fmt::format(" (the first plan, {}: {})", describe(space.front()),
                            e.errors().items().front().message);
    }
    throw InputError(r.infeasible.begin()->first.substr(8),
                     fmt::format("every plan of the searched space is invalid for this scenario: "
                                 "{}{}; widen the scenario's search section or the --set pins",
                                 why, first));
  }
  return write_report_with_gates(
      a.common, "search", search_report_json(r, s), search_report_text(r, s),
      [&] { return search_html(r, s); },
      [&] {
        return a.csv.empty() ? OutputList{} : OutputList{{a.csv, search_report_csv(r)}};
      });
}

}  // namespace shardsim::cli
