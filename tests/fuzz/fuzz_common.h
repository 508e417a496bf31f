// Shared by the libFuzzer targets (tests/fuzz/*_fuzz.cc). Each target's property: for ANY input
// bytes, the code under test either succeeds or reports bad input the documented way (InputError,
// or an error value for the parsers that return one); it never crashes, hangs, leaks, trips a
// sanitizer, throws anything else, or produces a non-finite number. A violation aborts, which
// libFuzzer (or replay_main.cc in a non-fuzzing build) reports with the input.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/evaluate/evaluate.h"

namespace shardsim::fuzz {

// Prints what broke and aborts (libFuzzer saves the input as a crash-* file).
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz property violated: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// Once per process: stdin from /dev/null, so an input naming "/dev/stdin" as a file cannot block.
inline void init_once() {
  static const bool done = [] { return std::freopen("/dev/null", "r", stdin) != nullptr; }();
  (void)done;
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Splits `text` at '\n' ('\r' dropped), keeping empty lines except the one after a final '\n'.
inline std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : text) {
    if (c == '\n') {
      out.push_back(std::move(cur));
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

// A refusal (the documented outcome for bad input). With SHARDSIM_FUZZ_VERBOSE set, its message
// goes to stderr: how to see whether a seed reaches past the reader.
inline void refused(const InputError& e) {
  static const bool verbose = std::getenv("SHARDSIM_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "refused: %s\n", e.what());
}

// Every number in `j` is finite (nlohmann holds NaN/inf as floats and writes them as null).
inline void require_finite(const nlohmann::json& j, const std::string& where) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) fail("non-finite number in " + where);
  if (j.is_structured())
    for (const auto& v : j) require_finite(v, where);
}

// The evaluation every command runs after loading (analytic step model and memory in full detail):
// an Estimate (feasible or infeasible with reasons) or diagnostics, never anything else.
// With SHARDSIM_FUZZ_VERBOSE set, each evaluation says "evaluated" (or its diagnostics).
void evaluate_loaded(const Scenario& s);

}  // namespace shardsim::fuzz
