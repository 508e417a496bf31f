// `shardsim compare`: one scenario evaluated over the cross product of varied keys. Each variant
// is the scenario loaded with the base overrides and its own assignments (the same dotted keys and
// values as --set), then evaluated. A variant whose assignments make bad input (tp = 3 with 32
// heads, an unknown value) is a result marked invalid with the diagnostics, not a failure of the
// whole comparison; a plan that cannot run is a feasible-false Estimate as everywhere else.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "simulator/core/diagnostics.h"
#include "simulator/evaluate/estimate.h"

namespace shardsim {

// One varied key and its values, each as --set takes it (JSON, or a bare string).
struct VaryAxis {
  std::string key;                  // dotted scenario key, e.g. "parallel.zero"
  std::vector<std::string> values;  // in the order given
};

// Parses "KEY=V1,V2,..." (values split at commas). Throws InputError naming the argument for a
// missing '=', an empty key or value.
[[nodiscard]] VaryAxis parse_vary(const std::string& arg);

// The most variants one comparison evaluates (a larger product is refused as bad input: search
// is the command for large spaces).
inline constexpr std::size_t kMaxVariants = 4096;

struct Variant {
  std::vector<std::string> values;     // one per axis, as given
  std::unique_ptr<Scenario> scenario;  // absent when the variant's input is invalid
  std::optional<Estimate> estimate;    // points at *scenario
  std::vector<Diagnostic> errors;      // why the variant's input is invalid; empty otherwise

  [[nodiscard]] bool invalid() const { return !errors.empty(); }
};

struct Comparison {
  std::vector<VaryAxis> axes;
  Mode mode = Mode::kDes;
  // The cross product, first axis slowest: variant i has value (i / stride_a) % n_a of axis a.
  std::vector<Variant> variants;
};

// Evaluates every variant of `scenario` (+ `overrides`) over `axes`, on `threads` threads (>= 1);
// the result does not depend on the thread count. Throws InputError for no axes, a key varied
// twice, more than kMaxVariants variants, or when every variant is invalid (the comparison then
// has nothing to show: the first variant's diagnostics are reported).
// `progress`, when set, is called with (variants done, variants) from one worker about every
// 0.2 s, and once at the end.
[[nodiscard]] Comparison compare_variants(
    const std::string& scenario, const std::vector<std::string>& overrides,
    std::vector<VaryAxis> axes, Mode mode, int threads,
    const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace shardsim
