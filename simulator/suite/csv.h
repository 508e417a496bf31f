// The validation suite's data files (scenarios/published/, embedded in the binary): a small reader
// for their CSV dialect. '#' lines are source headers; the first other line names the columns,
// unless `header_in_comment` says the column names are the last '#' line (the vTrain copy keeps
// its original header, which begins with '#'). Fields are separated by commas, with no quoting:
// the files use ';' inside a field.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace shardsim::suite {

struct CsvTable {
  std::string file;                            // e.g. "published/korthikanti2022-table5.csv"
  std::vector<std::string> columns;            // column names
  std::vector<std::vector<std::string>> rows;  // data rows, each with columns.size() fields
  std::vector<int> lines;                      // 1-based line of each data row in the file
  // The field of `row` in column `name`. Throws std::logic_error naming the file when the column
  // is absent (the embedded files are fixed at build time: a missing column is a bug).
  [[nodiscard]] const std::string& field(std::size_t row, std::string_view name) const;
  [[nodiscard]] double number(std::size_t row, std::string_view name) const;
  [[nodiscard]] int integer(std::size_t row, std::string_view name) const;
};

// Parses `text`; throws std::logic_error naming `file` and the line for a row whose field count
// differs from the header's.
[[nodiscard]] CsvTable parse_csv(std::string_view text, const std::string& file,
                                 bool header_in_comment = false);

// The embedded file at `path` (relative to scenarios/, e.g. "published/mosaicml-mpt-a100.csv").
// Throws std::logic_error when it is not embedded.
[[nodiscard]] std::string_view published_file(std::string_view path);

// The parsed embedded CSV at `path`.
[[nodiscard]] CsvTable published_table(std::string_view path, bool header_in_comment = false);

}  // namespace shardsim::suite
