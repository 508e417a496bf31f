// Shared helpers of the command-line tests: run the built binary with posix_spawn (no shell),
// capture stdout and stderr through temporary files, and inspect the results.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cli_test {

namespace fs = std::filesystem;
using nlohmann::json;

inline const fs::path kBadDir = fs::path(SHARDSIM_TEST_DATA_DIR) / "bad_scenarios";
// The README's default example: llama3-8b on one DGX H100 node (8 GPUs), tp 2, sp, ZeRO-1.
inline const std::string kExample = "llama3-8b-8xh100";

struct Result {
  int exit_code = -1;  // the exit status, or 128 + signal number if the process was killed
  std::string out;
  std::string err;
};

// A private scratch folder for the whole test binary, removed at exit.
const fs::path& scratch_dir();
std::string read_file(const fs::path& p);
// Runs `shardsim args...` and waits for it.
Result shardsim(const std::vector<std::string>& args);
// "shardsim memory ..." with a readable description of the command for failure messages.
std::string describe(const std::vector<std::string>& args);
bool contains(const std::string& text, const std::string& part);
// NaN or infinity printed as a word ("nan", "-inf", "inf", "infinity"; "provenance" does not
// count). nlohmann::json writes NaN as null, which has_null() catches in JSON output.
bool has_nan_or_inf(const std::string& text);
bool has_null(const json& j);
std::vector<std::string> lines_of(const std::string& text);
// True if some line is "error: POINTER: ..." (or "error: ..." without a pointer when `pointer`
// is empty) and contains `fragment`.
bool has_error_line(const std::string& err, const std::string& pointer,
                    const std::string& fragment);
int count_error_lines(const std::string& err);
json parse_report(const Result& r);
// Names of the shipped example scenarios, from `shardsim presets examples --json`.
std::vector<std::string> example_names();

}  // namespace cli_test
