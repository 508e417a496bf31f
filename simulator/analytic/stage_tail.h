// The tail after a pipeline stage's last backward in the analytic model: its exposed
// data-parallel time, optimizer step and offload copies, less what the stage's lead over the
// step's last stage hides.
#pragma once

#include <vector>

#include "simulator/analytic/stage_work.h"

namespace shardsim {

// Exposed seconds of the tail that shows (the stage whose tail ends the step).
struct StageTail {
  double dp = 0, optimizer = 0, offload = 0;
};

// spans: ZB-H2's stage spans (pipeline_paths.h zb_h2_span), empty under the other schedules.
[[nodiscard]] StageTail stage_tail(const Scenario& s, const Plan& plan, const StepCosts& c,
                                   const std::vector<StageWork>& work,
                                   const std::vector<double>& spans);

}  // namespace shardsim
