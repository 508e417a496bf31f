// Input errors as values: every problem found in a scenario is collected with the JSON pointer of
// the offending field, so all of them can be reported together (exit code 2).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace shardsim {

// Process exit codes (DESIGN.md): 0 ok, 1 a requested check failed, 2 bad input or usage,
// 3 runtime failure (no device, MPI or NCCL error).
enum ExitCode : int { kExitOk = 0, kExitCheckFailed = 1, kExitBadInput = 2, kExitRuntime = 3 };

struct Diagnostic {
  std::string path;     // JSON pointer, e.g. "/parallel/tp"; empty for file-level problems
  std::string message;  // names the value, the allowed range or set, and a suggestion if any
};

class Diagnostics {
 public:
  void error(std::string path, std::string message);
  [[nodiscard]] bool empty() const { return items_.empty(); }
  [[nodiscard]] const std::vector<Diagnostic>& items() const { return items_; }
  // One line per problem: "error: /parallel/tp: must be >= 1, got 0".
  [[nodiscard]] std::string format() const;
  // REQUIRES: nothing. Throws InputError carrying every collected problem if any were recorded.
  void throw_if_any() const;

 private:
  std::vector<Diagnostic> items_;
};

// Thrown when output cannot be written (disk full, permission denied, I/O error, a closed
// stdout); the CLI maps it to exit code 3 (a runtime failure, not the user's input).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown for bad input of any kind; the CLI maps it to exit code 2.
class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<Diagnostic> items);
  InputError(std::string path, std::string message);
  [[nodiscard]] const std::vector<Diagnostic>& items() const { return items_; }

 private:
  std::vector<Diagnostic> items_;
};

// The problems of a JSON file named by a flag, one item each: "--gpu my.json: /memory_bytes: ...".
[[noreturn]] void throw_with_flag(const Diagnostics& d, const std::string& flag,
                                  const std::string& file);

}  // namespace shardsim
