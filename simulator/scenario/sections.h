// Strict readers for the scenario's sections (training, parallel, cluster, overheads), and
// the names of the enumerations they accept.
#pragma once

#include <nlohmann/json.hpp>

#include "simulator/core/diagnostics.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

// Reads a whole scenario document whose presets are already merged (load.cc). Every problem is
// added to `diags`; nothing is thrown.
void read_scenario_sections(const nlohmann::json& raw, Diagnostics& diags, Scenario& out);

// The training and parallel sections and the cluster's size as `s` runs them: every default
// and derived value written out by the names the readers accept, so that reading them back
// gives the same scenario (reports' `scenario`, "the resolved input").
[[nodiscard]] nlohmann::json effective_training_json(const Scenario& s);
[[nodiscard]] nlohmann::json effective_parallel_json(const Scenario& s);

}  // namespace shardsim
