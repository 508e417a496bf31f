#include "simulator/suite/csv.h"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

#include "scenarios/embedded.h"

namespace shardsim::suite {
namespace {

std::vector<std::string> split(std::string_view line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    out.emplace_back(line.substr(start, comma - start));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

std::string_view strip_cr(std::string_view line) {
  return !line.empty() && line.back() == '\r' ? line.substr(0, line.size() - 1) : line;
}

}  // namespace

const std::string& CsvTable::field(std::size_t row, std::string_view name) const {
  for (std::size_t c = 0; c < columns.size(); ++c)
    if (columns[c] == name) return rows.at(row)[c];
  throw std::logic_error(fmt::format("{}: no column \"{}\"", file, name));
}

double CsvTable::number(std::size_t row, std::string_view name) const {
  const std::string& f = field(row, name);
  double v = 0;
  const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec != std::errc() || end != f.data() + f.size())
    throw std::logic_error(
        fmt::format("{}:{}: column \"{}\": \"{}\" is not a number", file, lines[row], name, f));
  return v;
}

int CsvTable::integer(std::size_t row, std::string_view name) const {
  const double v = number(row, name);
  if (v != double(int(v)))
    throw std::logic_error(
        fmt::format("{}:{}: column \"{}\": {} is not an integer", file, lines[row], name, v));
  return int(v);
}

CsvTable parse_csv(std::string_view text, const std::string& file, bool header_in_comment) {
  CsvTable t;
  t.file = file;
  std::string_view last_comment;
  int line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = strip_cr(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (line.empty()) continue;
    if (line.front() == '#') {
      last_comment = line;
      continue;
    }
    if (t.columns.empty()) {
      if (header_in_comment) {
        last_comment.remove_prefix(std::min<std::size_t>(2, last_comment.size()));  // "# "
        t.columns = split(last_comment);
      } else {
        t.columns = split(line);
        continue;
      }
    }
    auto fields = split(line);
    if (fields.size() != t.columns.size())
      throw std::logic_error(fmt::format("{}:{}: {} fields, the header has {}", file, line_no,
                                         fields.size(), t.columns.size()));
    t.rows.push_back(std::move(fields));
    t.lines.push_back(line_no);
  }
  return t;
}

std::string_view published_file(std::string_view path) {
  for (const auto& f : embedded_published())
    if (f.path == path) return f.text;
  throw std::logic_error(fmt::format("{} is not embedded in this binary", path));
}

CsvTable published_table(std::string_view path, bool header_in_comment) {
  return parse_csv(published_file(path), std::string(path), header_in_comment);
}

}  // namespace shardsim::suite
