// nccl-tests log parser (contract and accepted variants in nccl_tests_log.h).
#include "simulator/hardware/nccl_tests_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "simulator/hardware/nccl_tests_lines.h"

namespace shardsim {
namespace {

using nccl_tests_lines::fields_of;
using nccl_tests_lines::is_integer;
using nccl_tests_lines::nccl_version;
using nccl_tests_lines::number;
using nccl_tests_lines::op_from_file;
using nccl_tests_lines::op_from_text;
using nccl_tests_lines::strip_srun;
using nccl_tests_lines::strip_tag_output;
using nccl_tests_lines::visible_controls;

constexpr std::size_t kNewFields = 13;  // size count type redop root + 2 x (time algbw busbw check)
constexpr std::size_t kOldFields = 12;  // no root column

struct Parser {
  const std::string& file;
  NcclTestsLog log;
  NcclTest current;
  std::set<std::string> hosts;
  std::map<std::string, int> ranks_on;  // "# Rank" lines per host of the current test
  std::set<int> rank_ids;
  int top_rank_line = 0;  // the line of the largest rank id
  int rank_line = 0;      // the last "# Rank" line
  std::optional<NcclTestsError> error;
  // The last column header's layout ("#  size  count  type  redop  root  time ..."): whether it
  // has the root column, and whether the check columns are `#wrong` counts or old `error`
  // maxima. Without a header, the field count says (13: root and #wrong, 12: neither).
  struct Columns {
    bool root = true;
    bool wrong_count = true;
    int line = 0;
    std::size_t count = 0;  // the names the header gives
    std::string names;      // as the header gives them, for messages
  };
  std::optional<Columns> columns;

  // Ends the current test if it has rows (a boundary before any row keeps what was read).
  void close_test() {
    if (current.rows.empty()) return;
    // Ranks spread unevenly over hosts (3 + 3 + 2) are no placement shardsim models: a node
    // count and ranks per node would describe one that never ran (found by review, 2026-11-27:
    // such a log was fitted as "3 per node").
    if (std::ranges::adjacent_find(ranks_on, std::ranges::not_equal_to{},
                                   [](const auto& h) { return h.second; }) != ranks_on.end()) {
      std::string spread;
      for (const auto& [host, n] : ranks_on)
        spread += fmt::format("{}{}: {}", spread.empty() ? "" : ", ", host, n);
      error = {file, rank_line,
               fmt::format("the \"# Rank\" lines spread the ranks unevenly over the hosts ({}); "
                           "shardsim fits groups with the same number of ranks on every node",
                           spread)};
      return;
    }
    // nccl-tests numbers its ranks 0 to n - 1 (rank 0 prints every rank's line): an id past the
    // count means lines are missing or come from another run (found by audit, 2026-11-29:
    // "# Rank 100" in an 8-rank log was fitted as 8 ranks).
    if (!rank_ids.empty() && *rank_ids.rbegin() >= current.ranks.value_or(0)) {
      error = {file, top_rank_line,
               fmt::format("the \"# Rank\" lines list rank {} but only {} ranks; nccl-tests "
                           "numbers them 0 to {}: lines are missing or from another run",
                           *rank_ids.rbegin(), current.ranks.value_or(0),
                           current.ranks.value_or(0) - 1)};
      return;
    }
    if (current.op.empty()) current.op = op_from_file(file);
    log.tests.push_back(std::move(current));
    current = {};
    hosts.clear();
    ranks_on.clear();
    rank_ids.clear();
  }

  std::optional<NcclTestsTiming> timing(const std::vector<std::string>& f, std::size_t at) {
    const auto t = number(f[at]), alg = number(f[at + 1]), bus = number(f[at + 2]);
    if (!t || !alg || !bus) return std::nullopt;
    return NcclTestsTiming{*t, *alg, *bus, f[at + 3]};
  }

  void data_row(const std::vector<std::string>& f, int line) {
    if (columns) {
      if (columns->count != (columns->root ? kNewFields : kOldFields)) {
        error = {
            file, line,
            fmt::format("the column header on line {} names {} columns ({}); shardsim reads "
                        "nccl-tests' {} (size count type redop root time algbw busbw #wrong, "
                        "time algbw busbw #wrong) or the older {} (no root)",
                        columns->line, columns->count, columns->names, kNewFields, kOldFields)};
        return;
      }
      if (f.size() != columns->count) {
        error = {file, line,
                 fmt::format("data row has {} fields; the column header on line {} names {} ({})",
                             f.size(), columns->line, columns->count, columns->names)};
        return;
      }
    } else if (f.size() != kNewFields && f.size() != kOldFields) {
      error = {file, line,
               fmt::format("data row has {} fields; expected {} (size count type redop root "
                           "time algbw busbw #wrong x2) or {} (old format, no root)",
                           f.size(), kNewFields, kOldFields)};
      return;
    }
    const bool old = f.size() == kOldFields;
    // The check column counts wrong results (#wrong) in the new layout; the old `error` column
    // is the largest numerical error, not a count.
    const bool wrong_count = columns ? columns->wrong_count : !old;
    const std::size_t t = old ? 4 : 5;
    const auto size = number(f[0]), count = number(f[1]);
    const auto root = old ? std::optional<double>(-1) : number(f[4]);
    const auto oop = timing(f, t), ip = timing(f, t + 4);
    if (!size || !count || !root || !oop || !ip) {
      error = {file, line,
               "data row has a non-numeric or non-finite size, count, root, time, algbw or busbw"};
      return;
    }
    // Times and bandwidths are never negative, and a message with bytes takes time; a row whose
    // #wrong count is above 0 measured a collective that returned wrong data (found by review,
    // 2026-11-27: such rows were dropped or used without a word).
    for (const NcclTestsTiming* tm : {&*oop, &*ip}) {
      if (*size < 0 || tm->time_us < 0 || tm->algbw_GBps < 0 || tm->busbw_GBps < 0 ||
          (*size > 0 && tm->time_us == 0)) {
        error = {file, line,
                 "data row has a negative size, time or bandwidth, or a zero time for a non-empty "
                 "message"};
        return;
      }
      if (const auto wrong = number(tm->check); wrong_count && wrong && *wrong > 0) {
        error = {file, line,
                 fmt::format("data row reports {} wrong result(s) (#wrong): that run returned bad "
                             "data; remove the row or rerun",
                             tm->check)};
        return;
      }
    }
    // Each time must agree with its own algbw column (algbw = size / time, GB/s): a time edited
    // or corrupted apart from its bandwidth is refused, as --collective-table refuses it (found
    // by review, 2026-11-27: 1e-30 us fitted a 1e5 GB/s segment, 1e12 us moved the topology
    // fit). Both are printed to 2 decimals: allowed 2 % plus 0.01 GB/s.
    for (const NcclTestsTiming* tm : {&*oop, &*ip}) {
      if (*size <= 0 || tm->time_us <= 0) continue;
      const double implied = *size / (tm->time_us * 1e3);
      if (!std::isfinite(implied) ||
          std::fabs(implied - tm->algbw_GBps) > 0.02 * tm->algbw_GBps + 0.01) {
        error = {file, line,
                 fmt::format("data row's time {} us gives {} GB/s for {} bytes, but its algbw "
                             "column says {} GB/s",
                             tm->time_us,
                             std::isfinite(implied) ? fmt::format("{:.2f}", implied)
                                                    : std::string("more than 1e308"),
                             *size, tm->algbw_GBps)};
        return;
      }
    }
    // The root is a rank (or -1 for "no root"); anything else cannot be cast to int safely.
    if (*root != std::floor(*root) || *root < -1 || *root > 1e9) {
      error = {file, line, fmt::format("data row has root {}; expected -1 or a rank >= 0", f[4])};
      return;
    }
    if (current.rows.size() >= kMaxRowsPerCollective) {
      error = {file, line,
               fmt::format("more than {} data rows in one test (nccl-tests prints one row per "
                           "size); thin the sweep",
                           kMaxRowsPerCollective)};
      return;
    }
    if (current.rows.empty()) current.first_line = line;
    current.old_format = old;
    current.last_line = line;
    current.rows.push_back({*size, *count, f[2], f[3], static_cast<int>(*root), *oop, *ip, line});
  }

  void comment(const std::string& line, int number) {
    const auto f = fields_of(line);
    if (line.find("nccl-tests version") != std::string::npos) columns.reset();
    // Test boundaries: the version, start and parameter lines open a test, a column header
    // after rows opens one, and the bandwidth summary closes one.
    for (const char* mark :
         {"nccl-tests version", "Collective test starting", "nThread", "Avg bus bandwidth"})
      if (line.find(mark) != std::string::npos) close_test();
    // A column header names at least size, count, type, time, algbw and busbw after its '#' (a
    // comment such as "# size here is in bytes" is not one; found by review, 2026-11-27).
    const auto has = [&](std::string_view name) { return std::ranges::find(f, name) != f.end(); };
    if (f.size() > 6 && f[0] == "#" && f[1] == "size" && has("count") && has("type") &&
        has("time") && has("algbw") && has("busbw")) {
      close_test();
      std::string names;
      for (std::size_t i = 1; i < f.size(); ++i) names += (i > 1 ? " " : "") + f[i];
      columns = Columns{has("root"), !has("error"), number, f.size() - 1, names};
    }
    if (const auto op = op_from_text(line); !op.empty()) {
      close_test();  // a collective named after data rows belongs to the next test
      current.op = op;
    }
    // nccl-tests' own verdict ("# Out of bounds values : 0 OK"), old-format logs' only check: a
    // FAILED run timed wrong results (found by review, 2026-11-29: one was fitted).
    if (const auto at = line.find("Out of bounds values"); at != std::string::npos) {
      const auto after = fields_of(line.substr(std::min(line.find(':', at), line.size() - 1) + 1));
      const std::optional<double> wrong =
          after.empty() ? std::nullopt : nccl_tests_lines::number(after[0]);
      if (line.find("FAILED") != std::string::npos || (wrong && *wrong > 0)) {
        error = {file, number,
                 fmt::format("the run's own check failed (\"{}\"): its times are of wrong "
                             "results; rerun the test",
                             line.substr(at))};
        return;
      }
    }
    if (const auto v = nccl_version(line); !v.empty()) current.nccl_version = v;
    // "#  Rank  0 Group  0 Pid  25 on HOST device 0 ...": fields 1 "Rank", 7 "on", 8 the host
    if (f.size() > 8 && f[1] == "Rank" && f[7] == "on") {
      const std::optional<double> id = nccl_tests_lines::number(f[2]);  // `number` is the line here
      if (!id || *id < 0 || *id >= 1e9 || *id != std::floor(*id)) {
        error = {file, number, fmt::format("\"{}\" is not a rank number (0, 1, ...)", f[2])};
        return;
      }
      if (rank_ids.empty() || int(*id) > *rank_ids.rbegin()) top_rank_line = number;
      if (!rank_ids.insert(int(*id)).second) {
        error = {file, number, fmt::format("rank {} is listed twice", f[2])};
        return;
      }
      current.ranks = current.ranks.value_or(0) + 1;
      hosts.insert(f[8]);
      ++ranks_on[f[8]];
      rank_line = number;
      current.nodes = static_cast<int>(hosts.size());
    }
  }

  void line(const std::string& raw, int number) {
    if (raw.find("NCCL INFO") != std::string::npos || raw.find("NCCL WARN") != std::string::npos)
      return;
    const std::string text = visible_controls(strip_srun(strip_tag_output(raw)));
    // A failed call ("HOST: Test NCCL failure common.cu:1005 '...'") ends the run: the sizes
    // after it were never measured (found by review, 2026-11-29: such a run was fitted).
    for (const char* failure : {"Test NCCL failure", "Test CUDA failure", "Test failure"})
      if (text.find(failure) != std::string::npos) {
        error = {file, number,
                 fmt::format("the run aborted here (\"{}\"): its sweep is incomplete; rerun the "
                             "test, or cut the log before this line to fit what it measured",
                             failure)};
        return;
      }
    const auto f = fields_of(text);
    if (f.empty()) return;
    if (f[0][0] == '#') return comment(text, number);
    if (const auto op = op_from_text(text); !op.empty() && !is_integer(f[0])) {
      close_test();  // a shell command line starting another test
      current.op = op;
      return;
    }
    // A negative size (an integer after '-') is a data row too, refused by data_row.
    if (is_integer(f[0]) || (f[0].size() > 1 && f[0][0] == '-' && is_integer(f[0].substr(1)))) {
      data_row(f, number);
      return;
    }
    // A row of a data row's shape whose size is a number but not written as a whole one
    // ("4194304.0", "4.194304e6", "+4194304") was skipped as text, silently (found by review,
    // 2026-11-28: the fit lost the row, exit 0). nccl-tests prints sizes as integers.
    // Nor may a size nccl-tests never prints ("1e400", "0x8000000", "134217728B", "abc") drop a
    // row whose timing columns are numbers (found by review, 2026-11-28: "9 rows" of 10, exit 0).
    const std::string first = f[0][0] == '+' ? f[0].substr(1) : f[0];
    const auto row_shaped = [&] {
      if (f.size() != kNewFields && f.size() != kOldFields) return false;
      int numbers = 0;  // of the two time, algbw, busbw and #wrong groups (#wrong may be N/A)
      for (std::size_t i = f.size() - 8; i < f.size(); ++i)
        numbers += bool(nccl_tests_lines::number(f[i]));
      return numbers >= 6;
    };
    if ((f.size() == kNewFields || f.size() == kOldFields) &&
        ((nccl_tests_lines::number(first) && nccl_tests_lines::number(f[1])) || row_shaped()))
      error = {file, number,
               fmt::format("data row's size \"{}\" is not a whole number of bytes written as "
                           "nccl-tests prints it (digits only)",
                           f[0])};
  }
};

}  // namespace

std::string NcclTestsError::text() const {
  return fmt::format("{}:{}: {}", file, line, message);
}

std::variant<NcclTestsLog, NcclTestsError> parse_nccl_tests_log(std::string_view text,
                                                                const std::string& file) {
  Parser p{file, {file, {}}, {}, {}, {}, {}, 0, 0, {}, {}};
  int number = 0;
  std::size_t start = 0;
  while (start < text.size() && !p.error) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    p.line(line, ++number);
    start = end + 1;
  }
  if (p.error) return *p.error;
  p.close_test();
  if (p.error) return *p.error;  // the last test's placement
  if (p.log.tests.empty()) {
    std::string why = number == 0 ? "the file is empty" : "no nccl-tests data rows found";
    if (number == 1 && text.find('\r') != std::string_view::npos)  // one line: bare CRs (review)
      why += ": its lines end in a bare carriage return (CR); convert them to line feeds";
    return NcclTestsError{file, std::max(number, 1), why};
  }
  return std::move(p.log);
}

}  // namespace shardsim
