#include "calibrate/csv.h"

#include <fmt/format.h>

#include <cmath>
#include <exception>

namespace shardsim::calibrate {

std::vector<std::string> split_csv(std::string_view line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',')
      out.emplace_back();
    else if (c != '\r')
      out.back() += c;
  }
  // spaces and tabs around a field are not part of it ("m, n, k" is the header m,n,k)
  for (std::string& f : out) {
    const std::size_t first = f.find_first_not_of(" \t");
    f = first == std::string::npos ? std::string()
                                   : f.substr(first, f.find_last_not_of(" \t") - first + 1);
  }
  return out;
}

std::vector<CsvLine> csv_lines(std::string_view text) {
  std::vector<CsvLine> out;
  int number = 0;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte-order mark
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (line.empty() || line.front() == '#' || line == "\r") continue;
    out.push_back({number, split_csv(line)});
  }
  return out;
}

std::optional<double> parse_number(const std::string& field) {
  if (field.empty() || field.find_first_not_of("0123456789+-.eE") != std::string::npos)
    return std::nullopt;
  try {
    std::size_t used = 0;
    const double v = std::stod(field, &used);
    // Beyond 1e30 no measurement lies; scaled to SI (x 1e12 for TFLOP/s) such a value became inf
    // and was printed so (found by review, 2026-11-28).
    if (used != field.size() || !std::isfinite(v) || std::abs(v) > 1e30) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<std::string> duplicate_column(const std::vector<std::string>& header) {
  for (std::size_t i = 0; i < header.size(); ++i)
    for (std::size_t j = i + 1; j < header.size(); ++j)
      if (!header[i].empty() && header[i] == header[j])
        return fmt::format("column \"{}\" appears twice (fields {} and {})", header[i], i + 1,
                           j + 1);
  return std::nullopt;
}

std::optional<std::string> ambiguous_column(const std::vector<std::string>& header,
                                            std::initializer_list<const char*> names) {
  const char* first = nullptr;
  for (const char* n : names) {
    if (csv_column(header, {n}) < 0) continue;
    if (first != nullptr)
      return fmt::format("columns \"{}\" and \"{}\" both name one column", first, n);
    first = n;
  }
  return std::nullopt;
}

std::optional<std::string> extra_fields(const std::vector<std::string>& fields,
                                        std::size_t header_fields) {
  for (std::size_t i = header_fields; i < fields.size(); ++i)
    if (!fields[i].empty())
      return fmt::format("{} fields, the header has {}", fields.size(), header_fields);
  return std::nullopt;
}

int csv_column(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
  for (const char* n : names)
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == n) return int(i);
  return -1;
}

}  // namespace shardsim::calibrate
