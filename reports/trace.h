// Chrome trace JSON (the Trace Event Format) of a simulated step: one process per pipeline
// stage, one thread per stream; opens in Perfetto (ui.perfetto.dev) and chrome://tracing.
#pragma once

#include <nlohmann/json.hpp>

#include "simulator/des/step_sim.h"

namespace shardsim {

[[nodiscard]] nlohmann::json chrome_trace(const StepResult& r, int stages);

}  // namespace shardsim
