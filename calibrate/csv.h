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

// A finite number filling the whole field, else nullopt.
[[nodiscard]] std::optional<double> parse_number(const std::string& field);

// Index of the first of `names` among the header's fields, or -1.
[[nodiscard]] int csv_column(const std::vector<std::string>& header,
                             std::initializer_list<const char*> names);

}  // namespace shardsim::calibrate
