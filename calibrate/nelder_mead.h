// Derivative-free minimisation (Nelder-Mead simplex), deterministic: the same start and function
// give the same result. Pure; no state outside the call.
#pragma once

#include <functional>
#include <vector>

namespace shardsim::calibrate {

struct MinimizeResult {
  std::vector<double> x;  // best point found
  double value = 0;       // f(x)
  int evaluations = 0;
};

// Minimises f from `start` with initial simplex steps `step` (one per coordinate), standard
// coefficients (reflection 1, expansion 2, contraction 1/2, shrink 1/2), until the simplex's
// values differ by less than `tolerance` (absolute) or `max_evaluations` is reached; then restarts
// once from the best point (a collapsed simplex is a common false stop).
// REQUIRES: step.size() == start.size() >= 1.
[[nodiscard]] MinimizeResult nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                                         const std::vector<double>& start,
                                         const std::vector<double>& step, int max_evaluations,
                                         double tolerance = 1e-10);

}  // namespace shardsim::calibrate
