// The CLI's side of the evaluate seam: bad input comes back from evaluate() as Diagnostics and
// leaves the CLI as InputError (exit code 2, every problem listed).
#pragma once

#include "simulator/core/diagnostics.h"
#include "simulator/evaluate/evaluate.h"
#include "simulator/scenario/load.h"

namespace shardsim::cli {

// REQUIRES: `s` outlives the returned Estimate.
inline Estimate evaluate_or_throw(const Scenario& s, const EvaluateOptions& options) {
  Expected<Estimate> e = evaluate(s, options);
  if (!e.ok()) e.errors().throw_if_any();
  return std::move(e).value();
}

}  // namespace shardsim::cli
