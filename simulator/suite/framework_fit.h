// Fits a framework's host cost (scenario.h FrameworkConfig: seconds per operation, per collective
// call and per step, and the share of host and GPU time that does not overlap) on the named
// calibration subset of the vTrain rows (vtrain_calibration_row: even rows), and reports the error
// on the held-out odd rows, which the fit never sees. This is the one global correction issue 9
// allows, fitted where it says: on a named subset.
#pragma once

#include <string>

#include "simulator/scenario/scenario.h"
#include "simulator/suite/suite.h"

namespace shardsim::suite {

struct FrameworkFit {
  FrameworkConfig framework;  // the fitted values (fitted = true, source says on what)
  ErrorStats calibration;     // the fit's objective: MAPE over the calibration rows
  ErrorStats held_out;        // the same over the held-out rows, with the fitted values
  ErrorStats before_calibration, before_held_out;  // with no host cost (all zero)
  int evaluations = 0;                             // objective evaluations of the fit
};

// Minimises the calibration rows' mean absolute percentage error in `mode` over (op_dispatch_s,
// collective_dispatch_s, step_overhead_s) >= 0 and 0 <= host_sync_fraction <= 1 (Nelder-Mead,
// deterministic). Every other scenario
// key stays as the vTrain cases give it (the shipped, measurement-fitted hardware profiles).
[[nodiscard]] FrameworkFit fit_framework(const std::string& name, Mode mode);

// The fit as a framework preset document (scenarios/frameworks/NAME.json).
[[nodiscard]] nlohmann::json framework_preset_json(const FrameworkFit& fit,
                                                   const std::string& description);

}  // namespace shardsim::suite
