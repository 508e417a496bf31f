// The closed-form memory cases of the suite: each `kind` of published/memory-closed-form.csv
// evaluated with the memory model's own functions (simulator/memory), in the case's unit.
#pragma once

#include <string>

#include "simulator/suite/cases.h"

namespace shardsim::suite {

// The value of `f` in `unit` ("GB", "GiB", "MiB", "B_params", "B/param"). Throws
// std::logic_error for an unknown kind, unit or missing input (the data file is fixed at build
// time, so that is a bug, found by the tests).
[[nodiscard]] double closed_form_value(const ClosedForm& f, const std::string& unit);

// `value` as the source printed it: rounded half away from zero to f.decimals, or DeepSpeed's
// integer bytes >> 20 when f.shift20 (value then in MiB).
[[nodiscard]] double as_printed(double value, const ClosedForm& f);

}  // namespace shardsim::suite
