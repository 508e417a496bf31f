// Minimal CSV reading for the measurement tables `fit` reads (GEMM, collective and bandwidth
// tables): comma-separated fields without quoting, '#' lines are source headers. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardsim::calibrate {

// One line that is neither empty nor a '#' header: its 1-based line number and its fields.
struct CsvLine {
  int number = 0;
  std::vector<std::string> fields;
};

// The fields of one line, split at commas ('\r' dropped, spaces and tabs around each field
// trimmed; no quoting).
[[nodiscard]] std::vector<std::string> split_csv(std::string_view line);

// The non-empty, non-'#' lines of `text`, in order (a leading UTF-8 byte-order mark skipped).
[[nodiscard]] std::vector<CsvLine> csv_lines(std::string_view text);

// A decimal number of magnitude at most 1e30 filling the whole field (digits, one sign, a point,
// an exponent), else nullopt: "0x10" is not 16 nor "0x1p9" 512 (strtod reads both; found by
// review, 2026-11-28).
[[nodiscard]] std::optional<double> parse_number(const std::string& field);

// A column named twice in `header` ("column \"m\" appears twice (fields 1 and 6)"), or nullopt:
// the readers take a column's first field, so the second would be silently ignored.
[[nodiscard]] std::optional<std::string> duplicate_column(const std::vector<std::string>& header);

// "columns \"m\" and \"best_m\" both name one column" when `header` holds two of `names` (the
// aliases of one column), or nullopt: the readers would take the first and ignore the other.
[[nodiscard]] std::optional<std::string> ambiguous_column(const std::vector<std::string>& header,
                                                          std::initializer_list<const char*> names);

// "N fields, the header has M" when `fields` has a non-empty field past the header's, or nullopt
// (empty trailing fields, as a trailing comma leaves, are accepted).
[[nodiscard]] std::optional<std::string> extra_fields(const std::vector<std::string>& fields,
                                                      std::size_t header_fields);

// Index of the first of `names` among the header's fields, or -1.
[[nodiscard]] int csv_column(const std::vector<std::string>& header,
                             std::initializer_list<const char*> names);

}  // namespace shardsim::calibrate
