// Parser of nccl-tests output (all_reduce_perf, all_gather_perf, ...): a pure function of the log
// text and its file name, no I/O. `shardsim fit` builds on it; tests read measured logs with it.
//
// Accepted variants (doc: shared nccl-cost-model.md section 7, "Output-format variants"):
//   - new column set: size count type redop root | time algbw busbw #wrong | (in-place, same)
//   - old column set (nccl-tests < ~2.10): no root column, `error` (max abs error) instead of
//     #wrong;
//   - launcher prefixes `0: ` (srun -l) at the start of a line and `[1,0]<stdout>:` (mpirun
//     --tag-output) anywhere in a line (a row flushed in pieces carries several);
//   - NCCL INFO / WARN lines, shell prompts, ssh warnings and other text: skipped;
//   - several tests in one file: a test starts at "# Collective test starting", at the
//     "# nThread ..." parameter line, or at a column header after data rows;
//   - zero-size rows, `N/A` in #wrong (in-place runs that do not validate).
// A line whose first field is an integer is a data row and must have 12 (old) or 13 (new)
// fields with numeric time/algbw/busbw; anything else is an error naming file and line.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace shardsim {

// At most this many rows of one collective test (or measured table). nccl-tests prints one row
// per size, about 30 for a factor-2 sweep; a linear sweep of a few thousand is still read. The
// segmented fit costs time in proportion to the rows (found by review, 2026-11-28: 100,000 rows
// took 29 s, and 64 MiB of them would take minutes).
inline constexpr std::size_t kMaxRowsPerCollective = 10000;

// One timed run (out-of-place or in-place) of a row.
struct NcclTestsTiming {
  double time_us = 0;     // microseconds per iteration
  double algbw_GBps = 0;  // size / time, GB/s (1e9 bytes/s)
  double busbw_GBps = 0;  // algbw x the collective's bus factor, GB/s
  std::string check;      // #wrong count ("0", "N/A") or, in the old format, max error ("5e-07")
  bool operator==(const NcclTestsTiming&) const = default;
};

struct NcclTestsRow {
  double size_bytes = 0;  // nccl-tests "size": see collective.h for what it means per op
  double count = 0;       // elements
  std::string type;       // "float", "double", ...
  std::string redop;      // "sum", "none", ...
  int root = -1;          // -1 when the column is absent (old format) or unused
  NcclTestsTiming out_of_place;
  NcclTestsTiming in_place;
  int line = 0;  // 1-based line of the row in the file
  bool operator==(const NcclTestsRow&) const = default;
};

struct NcclTest {
  std::string op;            // nccl-tests name (all_reduce, all_gather, ...); empty if unknown
  std::optional<int> ranks;  // number of "# Rank" lines, when printed
  std::optional<int> nodes;  // distinct hosts on those lines, when printed
  bool old_format = false;   // no root column, `error` instead of #wrong
  std::string nccl_version;  // "2.29.2" from "# nccl-tests version ... nccl-library=22902"
  int first_line = 0;        // first and last data row lines (1-based)
  int last_line = 0;
  std::vector<NcclTestsRow> rows;
};

struct NcclTestsLog {
  std::string file;
  std::vector<NcclTest> tests;  // only tests with at least one row
};

// A parse failure: "FILE:LINE: message".
struct NcclTestsError {
  std::string file;
  int line = 0;
  std::string message;
  [[nodiscard]] std::string text() const;
};

// Parses `text` (the contents of `file`; the name is used in errors and, when the log names no
// collective, to infer the op from "<anything>_<op>_<ranks>.log" or "<op>_perf"). A log with no
// data row is an error. Never throws for bad input.
[[nodiscard]] std::variant<NcclTestsLog, NcclTestsError> parse_nccl_tests_log(
    std::string_view text, const std::string& file);

}  // namespace shardsim
