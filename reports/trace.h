// Chrome trace JSON (the Trace Event Format) of a simulated step: one process per pipeline
// stage, one thread per stream; opens in Perfetto (ui.perfetto.dev) and chrome://tracing.
#pragma once

#include <nlohmann/json.hpp>

#include "simulator/evaluate/estimate.h"

namespace shardsim {

// REQUIRES: e came from evaluate in Mode::kDes with EvaluateOptions::timeline.
[[nodiscard]] nlohmann::json chrome_trace(const Estimate& e);

}  // namespace shardsim
