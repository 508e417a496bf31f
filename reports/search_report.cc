#include "reports/search_report.h"

#include <fmt/format.h>

#include "reports/build_info.h"
#include "reports/report_common.h"
#include "reports/step_report.h"
#include "simulator/core/units.h"
#include "simulator/hardware/hardware.h"

namespace shardsim {
namespace {

nlohmann::json plan_json(const Candidate& c) {
  return {{"tp", c.tp},
          {"pp", c.pp},
          {"vpp", c.vpp},
          {"cp", c.cp},
          {"ep", c.ep},
          {"dp", c.dp},
          {"micro_batch", c.micro_batch},
          {"zero", c.zero},
          {"sp", c.sp},
          {"offload_optimizer", c.offload_optimizer},
          {"recompute", recompute_name(c.recompute)},
          {"schedule", schedule_name(c.schedule)},
          {"cp_comm_type", cp_comm_name(c.cp_comm)}};
}

}  // namespace

nlohmann::json search_report_json(const SearchResult& r, const Scenario& s) {
  nlohmann::json j;
  j["schema_version"] = kReportSchemaVersion;
  j["tool_version"] = tool_version();
  j["build"] = build_json();
  j["profile"] = profile_summary(s.cluster.gpu);
  j["network"] = network_summary(s.cluster.network);
  j["scenario"] = s.resolved;
  nlohmann::json results = nlohmann::json::array();
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const RankedPlan& p = r.results[i];
    const nlohmann::json full = simulate_report_json(p.estimate);
    nlohmann::json row = {{"rank", i + 1}, {"plan", plan_json(p.plan)}};
    for (const char* k : {"memory", "time", "throughput", "feasibility", "warnings"})
      if (full.contains(k)) row[k] = full[k];
    row["analytic"] = {{"rank", p.analytic_rank},
                       {"step_seconds", p.analytic_step_seconds},
                       {"tokens_per_second", p.analytic_tokens_per_second}};
    results.push_back(std::move(row));
  }
  nlohmann::json infeasible = nlohmann::json::object();
  for (const auto& [reason, n] : r.infeasible) infeasible[reason] = n;
  j["search"] = {
      {"considered", r.considered},
      {"feasible", r.feasible},
      {"infeasible", infeasible},
      {"top_k", r.top_k},
      {"ranking",
       "analytic tokens/s over every plan, then the top_k re-ranked by "
       "discrete-event tokens/s"},
      {"baseline", {{"plan", plan_json(r.baseline)}, {"analytic_rank", r.baseline_rank}}},
      {"results", results}};
  return j;
}

std::string search_report_text(const SearchResult& r, const Scenario& s) {
  std::string out = fmt::format(
      "search  {}: {} GPUs ({} nodes x {} {}), global batch {} x {} tokens\n",
      s.name.empty() ? "(unnamed)" : s.name, s.cluster.gpus(), s.cluster.nodes,
      s.cluster.gpus_per_node, s.cluster.gpu.name, s.training.global_batch, s.training.seq_len);
  out += fmt::format("plans: {} considered, {} run, {} dropped", r.considered, r.feasible,
                     r.considered - r.feasible);
  std::string why;
  for (const auto& [reason, n] : r.infeasible)
    why += fmt::format("{}{}: {}", why.empty() ? "" : ", ", reason, n);
  out += why.empty() ? "\n" : " (" + why + ")\n";
  std::size_t analytic_only = 0;  // too large to simulate (SearchResult)
  for (const auto& p : r.results) analytic_only += p.estimate.time->mode == Mode::kAnalytic;
  out += fmt::format(
      "ranked by analytic tokens/s; the top {} re-ranked by the discrete-event simulation{}\n"
      "memory: peak per GPU in GiB (2^30 B); step in seconds; MFU in the Megatron convention\n\n",
      r.top_k,
      analytic_only == 0
          ? ""
          : fmt::format(" ({} too large to simulate keep their analytic figures: marked *)",
                        analytic_only));
  std::size_t width = 4;
  for (const auto& p : r.results) width = std::max(width, describe(p.plan).size());
  out += fmt::format("{:>4}  {:<{}}  {:>9} {:>9} {:>11} {:>6} {:>9}\n", "rank", "plan", width,
                     "peak GiB", "step s", "tokens/s", "MFU %", "analytic");
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const RankedPlan& p = r.results[i];
    const StepTime& t = *p.estimate.time;
    out += fmt::format("{:>4}  {:<{}}  {:>9.2f} {:>9.4f} {:>11.4g} {:>6.1f} {:>9}{}\n", i + 1,
                       describe(p.plan), width, p.estimate.memory->peak_bytes / kGiB,
                       t.step_seconds, t.throughput.tokens_per_second, 100 * t.throughput.mfu,
                       fmt::format("#{}", p.analytic_rank), t.mode == Mode::kAnalytic ? " *" : "");
  }
  if (r.results.empty()) out += "  (no plan of the space can run)\n";
  for (std::size_t i = 0; i < r.results.size(); ++i)
    if (r.results[i].estimate.time->mode == Mode::kAnalytic)
      out += fmt::format("   * rank {}: {}\n", i + 1, r.results[i].estimate.warnings.back());
  // parallel.dp left to the GPU count (null) stays 0 when tp x cp x pp does not divide it: there
  // is no own plan to describe (found by README audit, 2026-11-29: it read "dp 0").
  const Candidate& own = r.baseline;
  if (own.dp == 0)
    out += fmt::format(
        "\nthe scenario's own plan: none (parallel.dp is not set, and {} GPUs are no whole "
        "multiple of tp x cp x pp = {} x {} x {})\n",
        s.cluster.gpus(), own.tp, own.cp, own.pp);
  else
    out += fmt::format("\nthe scenario's own plan ({}): {}", describe(own),
                       r.baseline_rank > 0
                           ? fmt::format("analytic rank {} of {}\n", r.baseline_rank, r.feasible)
                           : std::string("outside the searched space, or it cannot run\n"));
  // The scenario's warnings (an unfitted profile or network), as simulate's text ends with them
  // (found by README audit, 2026-11-29: they were in the JSON's results only).
  for (const auto& w : s.warnings) out += "warning: " + w + "\n";
  // Then the plans' own (groups that sit differently on the nodes, ...), each once with the
  // ranks it concerns (found by README audit, 2026-11-29: in the JSON only). The scenario's and
  // the analytic-only note (marked * above) are not repeated.
  std::vector<std::pair<std::string, std::vector<std::size_t>>> plan_warnings;
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const Estimate& e = r.results[i].estimate;
    for (std::size_t k = 0; k < e.warnings.size(); ++k) {
      const std::string& w = e.warnings[k];
      const bool marked = e.time->mode == Mode::kAnalytic && k + 1 == e.warnings.size();
      if (marked || std::ranges::find(s.warnings, w) != s.warnings.end()) continue;
      auto it = std::ranges::find(plan_warnings, w, &decltype(plan_warnings)::value_type::first);
      if (it == plan_warnings.end()) it = plan_warnings.insert(plan_warnings.end(), {w, {}});
      it->second.push_back(i + 1);
    }
  }
  for (const auto& [w, ranks] : plan_warnings)
    out += fmt::format("warning (rank{} {}): {}\n", ranks.size() == 1 ? "" : "s",
                       fmt::join(ranks, ", "), w);
  return out;
}

std::string search_report_csv(const SearchResult& r) {
  std::string out =
      "rank,tp,pp,vpp,cp,ep,dp,micro_batch,zero,sp,offload_optimizer,recompute,schedule,"
      "cp_comm_type,peak_bytes,step_seconds,tokens_per_second,mfu,analytic_rank,"
      "analytic_tokens_per_second\n";
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const RankedPlan& p = r.results[i];
    const Candidate& c = p.plan;
    const StepTime& t = *p.estimate.time;
    out +=
        fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", i + 1, c.tp,
                    c.pp, c.vpp, c.cp, c.ep, c.dp, c.micro_batch, c.zero, c.sp ? "true" : "false",
                    c.offload_optimizer ? "true" : "false", recompute_name(c.recompute),
                    schedule_name(c.schedule), cp_comm_name(c.cp_comm),
                    csv_number(p.estimate.memory->peak_bytes), csv_number(t.step_seconds),
                    csv_number(t.throughput.tokens_per_second), csv_number(t.throughput.mfu),
                    p.analytic_rank, csv_number(p.analytic_tokens_per_second));
  }
  return out;
}

}  // namespace shardsim
