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

}  // namespace shardsim
