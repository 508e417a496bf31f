// Scenario loading: file or shipped example -> --set overrides -> presets and hf_config merged ->
// strict parse of every section (all errors together) -> cross-field checks (validate.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "simulator/scenario/scenario.h"

namespace shardsim {

// What loading checks. kCluster leaves out the plan's own checks (the parallel degrees against
// the GPUs, the batch against the degrees, the strategy rules): `search` replaces the plan, so a
// scenario whose plan cannot run still names a model, a cluster and a batch to search for.
enum class PlanChecks { kAll, kCluster };

// `scenario` is a path to a JSON file or the name of a shipped example (scenarios/examples).
// `overrides` are "dotted.key=VALUE" strings; VALUE is JSON, or a bare string; null removes
// the key (back to its default or derived value).
// Throws InputError (exit code 2) with every problem found.
[[nodiscard]] Scenario load_scenario(const std::string& scenario,
                                     const std::vector<std::string>& overrides = {},
                                     PlanChecks checks = PlanChecks::kAll);

// cluster.gpu as a profile document: an inline object as it is, a preset name's shipped
// profile, or the JSON file a path names (relative to `base_dir`). Throws InputError at
// /cluster/gpu for an unknown name or an unreadable file.
[[nodiscard]] nlohmann::json resolve_gpu_json(const nlohmann::json& gpu,
                                              const std::string& base_dir);

// The same from an already parsed document. `base_dir` resolves relative paths (hf_config, a GPU
// profile file) and may be empty.
[[nodiscard]] Scenario scenario_from_json(nlohmann::json raw, const std::string& base_dir,
                                          const std::vector<std::string>& overrides = {},
                                          PlanChecks checks = PlanChecks::kAll);

// Applies the scenario's effect switches (Scenario::effects): an effect that is off has what it
// reads removed from the scenario (its GPU profile's measured tables, the network's fitted curves,
// the framework's host cost). scenario_from_json calls it; a caller that turns an effect off in a
// loaded scenario (simulate --explain) calls it again.
void apply_effect_switches(Scenario& s);

// Reads a JSON file; InputError for a missing file or malformed JSON (with line and column).
[[nodiscard]] nlohmann::json read_json_file(const std::string& path);

}  // namespace shardsim
