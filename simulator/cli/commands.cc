#include "simulator/cli/commands.h"

#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <string_view>

#include "reports/gates.h"
#include "reports/html_report.h"
#include "reports/memory_report.h"
#include "reports/output.h"
#include "reports/report_common.h"
#include "simulator/cli/evaluate_scenario.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/core/units.h"
#include "simulator/memory/deepspeed_estimator.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/presets.h"

namespace shardsim::cli {
namespace {

// DeepSpeed's own estimate for the scenario's model, for side-by-side comparison.
int run_deepspeed_estimate(const Scenario& s, const MemoryArgs& a) {
  const auto& p = s.strategy;
  if (p.zero < 2)
    throw InputError("/parallel/zero", "--estimator deepspeed covers ZeRO stages 2 and 3");
  const auto totals = count_parameters(s.model, s.training.seq_len);
  const int gpn = s.cluster.gpus_per_node, nodes = s.cluster.nodes;
  const DeepSpeedEstimate e =
      p.zero == 2 ? deepspeed_zero2_estimate(totals.total, gpn, nodes, p.offload_optimizer)
                  : deepspeed_zero3_estimate(totals.total, totals.largest_layer, gpn, nodes,
                                             p.offload_params, p.offload_optimizer, true);
  // The formula assumes pure data parallelism: a scenario with model-parallel degrees gets the
  // caveat in both outputs (the JSON had none: found by review, 2026-11-29).
  std::vector<std::string> warnings;
  if (p.tp * p.pp * p.ep * p.cp > 1)
    warnings.push_back(fmt::format(
        "DeepSpeed's formula assumes pure data parallelism; this scenario's tp {}, pp {}, cp {} "
        "and ep {} are not reflected",
        p.tp, p.pp, p.cp, p.ep));
  if (a.common.json) {
    nlohmann::json j = {
        {"schema_version", kReportSchemaVersion},
        {"tool_version", tool_version()},
        {"build", build_json()},
        {"estimator", "deepspeed"},
        {"model",
         {{"parameters", totals.total}, {"largest_layer_parameters", totals.largest_layer}}},
        {"deepspeed", {{"gpu_bytes_per_gpu", e.gpu_bytes}, {"cpu_bytes_per_node", e.cpu_bytes}}},
        {"warnings", warnings}};
    write_output(a.common.output, json_text(j, 2) + "\n");
    return kExitOk;
  }
  const std::string note = warnings.empty() ? std::string() : "note: " + warnings.front() + "\n";
  write_output(
      a.common.output,
      note + fmt::format("DeepSpeed ZeRO-{} closed-form model-state estimate (no activations or "
                         "buffers; cpu includes DeepSpeed's 1.5x buffer factor{})\n"
                         "params {:.3f} B, largest layer {:.3f} M\n"
                         "per GPU: {:.2f} GiB (2^30 bytes)\nper node CPU: {:.2f} GiB\n",
                         p.zero, p.zero == 3 ? ", zero_init on" : "", totals.total / 1e9,
                         totals.largest_layer / 1e6, e.gpu_bytes / kGiB, e.cpu_bytes / kGiB));
  return kExitOk;
}

// The first sentence of a description (". " not after an abbreviation: "et al.", "e.g.",
// "i.e.", "vs.", "cf."), at most 90 characters.
std::string summary(const std::string& description) {
  const auto abbreviation = [&](std::size_t end) {
    for (const std::string_view a : {"al", "et", "e.g", "i.e", "vs", "cf"})
      if (end >= a.size() && description.compare(end - a.size(), a.size(), a) == 0) return true;
    return false;
  };
  std::size_t end = description.find(". ");
  while (end != std::string::npos && abbreviation(end)) end = description.find(". ", end + 2);
  std::string s = description.substr(0, end);
  if (s.size() > 90) s = s.substr(0, 87) + "...";
  return s;
}

}  // namespace

int write_report_with_gates(const ScenarioArgs& a, std::string_view command,
                            const nlohmann::json& report, const std::string& text,
                            const std::function<std::string()>& html,
                            const std::function<OutputList()>& more_outputs) {
  std::vector<GateOutcome> gates = run_checks(report, a.checks, command);
  if (!a.baseline.empty()) {
    std::string t = a.tolerance;
    const bool percent_sign = !t.empty() && t.back() == '%';
    if (percent_sign) t.pop_back();
    double tolerance = -1;
    try {
      std::size_t used = 0;
      tolerance = std::stod(t, &used);
      if (used != t.size()) tolerance = -1;
    } catch (const std::exception&) {
      tolerance = -1;
    }
    if (!(tolerance >= 0) || !std::isfinite(tolerance))
      throw InputError(
          "", fmt::format("--tolerance \"{}\": expected a percentage >= 0, e.g. 2%", a.tolerance));
    // "0.02" may mean a fraction (2 %) as well as 0.02 %; it was read as 0.02 %, silently (found
    // by review, 2026-11-28). Below 1 the sign says which.
    if (!percent_sign && tolerance > 0 && tolerance < 1)
      throw InputError(
          "", fmt::format("--tolerance {}: a percentage below 1 without its % sign "
                          "is ambiguous (a fraction, {:g} %, or {} %?); write {}% "
                          "or {:g}%",
                          a.tolerance, tolerance * 100, a.tolerance, a.tolerance, tolerance * 100));
    if (tolerance == 0) tolerance = 0;  // -0 ("-0%") is 0: it printed "-0 %" (review, 2026-11-29)
    nlohmann::json baseline;
    try {
      baseline = read_json_file(a.baseline);
    } catch (const InputError& e) {  // named by its flag (found by review, 2026-11-28)
      throw InputError("--baseline", e.items().front().message);
    }
    const auto more = compare_baseline(report, baseline, tolerance);
    gates.insert(gates.end(), more.begin(), more.end());
  }
  if (!a.html.empty() && !html) throw InputError("", "--html is not available for this command");
  OutputList outputs = more_outputs ? more_outputs() : OutputList{};
  if (!a.html.empty()) outputs.emplace_back(a.html, html());
  outputs.emplace_back(a.output, a.json ? json_text(report, 2) + "\n" : text);
  write_outputs(outputs);
  std::cerr << gates_text(gates);
  for (const auto& g : gates)
    if (!g.passed) return kExitCheckFailed;
  return kExitOk;
}

std::vector<std::pair<std::string, std::string>> outputs_of(
    const ScenarioArgs& a, const std::vector<std::pair<std::string, std::string>>& more) {
  std::vector<std::pair<std::string, std::string>> out = {{"-o", a.output}, {"--html", a.html}};
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

// The baseline is left out: it is read before anything is written, so `-o base.json --baseline
// base.json` refreshes a baseline in place after comparing with it.
std::vector<std::pair<std::string, std::string>> inputs_of(const ScenarioArgs& a) {
  return {{"SCENARIO", a.scenario}};
}

int run_memory(const MemoryArgs& a) {
  check_outputs(outputs_of(a.common), inputs_of(a.common));
  const Scenario s = load_scenario(a.common.scenario, a.common.overrides);
  check_outputs_not_inputs(outputs_of(a.common), s.files_read);
  // DeepSpeed's closed form needs no plan: it answers for infeasible plans too.
  if (a.estimator == "deepspeed") {
    if (!a.common.checks.empty() || !a.common.baseline.empty() || !a.common.html.empty())
      throw InputError("",
                       "--check, --baseline and --html apply to shardsim's own memory report, not "
                       "to --estimator deepspeed");
    return run_deepspeed_estimate(s, a);
  }
  const Estimate e = evaluate_or_throw(s, {Mode::kMemory});
  // Not fitting, or a plan that cannot run, is a result with its reasons (exit 0 unless a gate
  // fails).
  return write_report_with_gates(
      a.common, "memory", memory_report_json(e), memory_report_text(e), [&] {
        return estimate_html(e,
                             "shardsim memory: " + (s.name.empty() ? a.common.scenario : s.name));
      });
}

int run_presets(const std::string& kind, bool json) {
  const std::vector<std::pair<std::string, PresetKind>> kinds = {
      {"models", PresetKind::kModel},
      {"gpus", PresetKind::kGpu},
      {"clusters", PresetKind::kCluster},
      {"examples", PresetKind::kExample},
      {"frameworks", PresetKind::kFramework}};
  nlohmann::json j = {{"schema_version", kReportSchemaVersion}, {"tool_version", tool_version()}};
  std::string text;
  for (const auto& [name, k] : kinds) {
    if (!kind.empty() && kind != name) continue;
    text += name + ":\n";
    nlohmann::json list = nlohmann::json::array();
    for (const auto& e : list_presets(k)) {
      text += fmt::format("  {:<24} {}\n", e.name, summary(e.description));
      list.push_back({{"name", e.name}, {"description", e.description}});
    }
    j[name] = list;
  }
  write_output("", json ? json_text(j, 2) + "\n" : text);
  return kExitOk;
}

}  // namespace shardsim::cli
