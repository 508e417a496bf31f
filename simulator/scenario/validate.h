// Cross-field checks of a scenario, run after every section parsed cleanly. Each message names
// the numbers involved. Pure: the checks return what they find; nothing is stored in the input.
#pragma once

#include <string>
#include <vector>

#include "simulator/core/diagnostics.h"
#include "simulator/core/infeasible.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

// Derived values: fills strategy.dp and cluster.nodes from whichever is given; problems go to
// `d`, the note that a partial node is used to s.warnings.
void resolve_world(Scenario& s, Diagnostics& d);

// What the checks of one strategy against the scenario's model, training and cluster found.
struct StrategyCheck {
  Diagnostics errors;                     // bad input: every violated constraint
  std::vector<Infeasibility> infeasible;  // valid input whose plan cannot run, with reasons
  std::vector<std::string> warnings;      // accepted but questionable choices
};

// Every cross-field check (divisibility, group sizes, layer splits, schedule needs).
// REQUIRES: resolve_world ran without errors (strategy.dp > 0).
[[nodiscard]] StrategyCheck check_strategy(const Scenario& s);

}  // namespace shardsim
