// What each switchable effect of the step-time model (Scenario::effects) contributes to one
// plan's step: the step evaluated with everything on, then once with each effect off. Used by
// `simulate --explain`, so a user can see why a plan is slow.
#pragma once

#include <string>
#include <vector>

#include "simulator/evaluate/estimate.h"

namespace shardsim {

struct EffectContribution {
  std::string name;                 // the effects key: host_dispatch, gemm_shape, ...
  std::string description;          // what it models, and what replaces it when off
  bool enabled = true;              // on in the scenario (an effect that is off contributes 0)
  double step_seconds_without = 0;  // the step with this effect off (the others as given)
  double seconds = 0;               // step_seconds - step_seconds_without (may be negative)
};

// REQUIRES: `s` came from load_scenario / scenario_from_json and evaluates to a feasible plan
// with a step time in `mode` (kAnalytic or kDes) whose step is `step_seconds`.
[[nodiscard]] std::vector<EffectContribution> explain_effects(const Scenario& s, Mode mode,
                                                              double step_seconds);

}  // namespace shardsim
