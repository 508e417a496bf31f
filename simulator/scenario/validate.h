// Cross-field checks, run after every section parsed cleanly. Each message names the numbers
// involved. Derived values (parallel.dp, cluster.nodes) are filled in here.
#pragma once

#include "simulator/scenario/scenario.h"

namespace shardsim {

// Throws InputError with every violated constraint; appends warnings to s.warnings.
void validate_scenario(Scenario& s);

}  // namespace shardsim
