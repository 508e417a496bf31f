// A CLI11 check for an option that counts something: a whole number written in decimal digits,
// from `lo` to `hi`. CLI11's Range checked the text as a double, so `--top 1e1` read "Value 1e1
// not in range 1 to 1000" (10 is in range; the integer option cannot take it) and `--top abc`
// the same (found by review, 2026-11-29); its PositiveNumber printed the whole of DBL_MAX.
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <string>

#include <CLI/CLI.hpp>

namespace shardsim::cli {

inline CLI::Validator whole_number(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        long long value = 0;
        const char* end = text.data() + text.size();
        const auto [at, ec] = std::from_chars(text.data(), end, value);
        // No leading zero: CLI11 reads "012" as octal 10 (found by review, 2026-11-27). A
        // number too large for from_chars (ec = result_out_of_range) is out of range too.
        if (ec == std::errc::result_out_of_range)
          return fmt::format("{} is out of range {} to {}", text, lo, hi);
        if (ec != std::errc() || at != end || (text.front() == '0' && text.size() > 1) ||
            text.front() == '-' || text.front() == '+')
          return fmt::format(
              "expected a whole number from {} to {} in decimal digits (no leading "
              "zero or sign), got \"{}\"",
              lo, hi, text);
        if (value < lo || value > hi)
          return fmt::format("{} is out of range {} to {}", text, lo, hi);
        return "";
      },
      fmt::format("INT in [{} - {}]", lo, hi));
}

}  // namespace shardsim::cli
