// Line-level helpers of the nccl-tests log parser (nccl_tests_lines.h).
#include "simulator/hardware/nccl_tests_lines.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

namespace shardsim::nccl_tests_lines {
namespace {

// nccl-tests binaries `<op>_perf`; longer names first so "all_reduce" wins over "reduce".
constexpr std::array<std::string_view, 10> kOps = {
    "all_reduce", "reduce_scatter", "all_gather", "alltoall", "sendrecv",
    "broadcast",  "hypercube",      "reduce",     "gather",   "scatter"};

}  // namespace

// Removes every mpirun --tag-output marker "[r,c]<stdout>:" / "<stderr>:" anywhere in the line.
std::string strip_tag_output(std::string_view line) {
  // Linear in the line: a tag starts at a '[' followed by digits and commas only, so each '['
  // scans its own run of them (found by review, 2026-11-28: searching for "]<std" from every
  // character took minutes on a 10 MB line, a progress bar's carriage returns in a job log).
  std::string out;
  out.reserve(line.size());
  std::size_t i = 0;
  while (i < line.size()) {
    if (line[i] == '[') {
      std::size_t j = i + 1;
      while (j < line.size() &&
             (std::isdigit(static_cast<unsigned char>(line[j])) || line[j] == ','))
        ++j;
      if (line.substr(j).starts_with("]<std")) {
        // ">:" at most 8 characters after the ']' ("]<stdout>:", "]<stderr>:")
        if (const auto colon = line.substr(j, 10).find(">:"); colon != std::string_view::npos) {
          i = j + colon + 2;
          continue;
        }
      }
    }
    out += line[i++];
  }
  return out;
}

// Control characters other than whitespace (which separates fields) written as \xNN: a NUL in a row
// ended its error message where it was quoted (found by review, 2026-11-28), and any other would
// reach the terminal raw. A field holding one is then no number, so such a row is still refused.
std::string visible_controls(const std::string& line) {
  std::string out;
  out.reserve(line.size());
  for (const char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && !std::isspace(c)) || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += ch;
  }
  return out;
}

// Removes a leading srun -l prefix "<digits>: ".
std::string strip_srun(const std::string& line) {
  std::size_t i = line.find_first_not_of(' ');
  if (i == std::string::npos) return line;
  const std::size_t start = i;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i > start && i + 1 < line.size() && line[i] == ':' && line[i + 1] == ' ')
    return line.substr(i + 2);
  return line;
}

std::vector<std::string> fields_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> f;
  for (std::string w; in >> w;) f.push_back(w);
  return f;
}

std::optional<double> number(const std::string& s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool is_integer(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

std::string op_from_text(std::string_view text) {
  for (const auto op : kOps)
    if (text.find(std::string(op) + "_perf") != std::string_view::npos) return std::string(op);
  return {};
}

// "<anything>_<op>_<ranks>.log": the op between underscores.
std::string op_from_file(const std::string& file) {
  const std::string base = file.substr(file.find_last_of('/') + 1);
  for (const auto op : kOps)
    if (base.find(fmt::format("_{}_", op)) != std::string::npos) return std::string(op);
  return {};
}

// "nccl-library=22902" -> "2.29.2" (major*10000 + minor*100 + patch).
std::string nccl_version(const std::string& line) {
  const auto at = line.find("nccl-library=");
  if (at == std::string::npos) return {};
  const auto f = fields_of(line.substr(at + 13));
  if (f.empty()) return {};
  const auto code = number(f.front());
  if (!code || *code < 0 || *code >= 1e9) return {};
  const int c = static_cast<int>(*code);
  return fmt::format("{}.{}.{}", c / 10000, c / 100 % 100, c % 100);
}

}  // namespace shardsim::nccl_tests_lines
