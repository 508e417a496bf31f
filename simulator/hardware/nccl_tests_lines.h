// Line-level helpers of the nccl-tests log parser (nccl_tests_log.cc): the prefixes launchers add
// to a line, its whitespace-separated fields, and the op and NCCL version a line or file names.
// Internal to simulator/hardware; the parser's contract is nccl_tests_log.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardsim::nccl_tests_lines {

// Removes every mpirun --tag-output marker "[r,c]<stdout>:" / "<stderr>:" anywhere in the line,
// in time linear in the line.
[[nodiscard]] std::string strip_tag_output(std::string_view line);

// Control characters other than whitespace written as \xNN, so a quoted row cannot end its
// message early (NUL) or reach the terminal raw; a field holding one is then no number.
[[nodiscard]] std::string visible_controls(const std::string& line);

// Removes a leading srun -l prefix "<digits>: ".
[[nodiscard]] std::string strip_srun(const std::string& line);

// The line's whitespace-separated fields.
[[nodiscard]] std::vector<std::string> fields_of(const std::string& line);

// The whole field as a finite number, else nullopt.
[[nodiscard]] std::optional<double> number(const std::string& s);

// Digits only, at least one.
[[nodiscard]] bool is_integer(const std::string& s);

// The op of an nccl-tests binary `<op>_perf` named in the text, "" if none.
[[nodiscard]] std::string op_from_text(std::string_view text);

// The op of a file named "<anything>_<op>_<ranks>.log", "" if none.
[[nodiscard]] std::string op_from_file(const std::string& file);

// "nccl-library=22902" -> "2.29.2" (major*10000 + minor*100 + patch); "" if absent.
[[nodiscard]] std::string nccl_version(const std::string& line);

}  // namespace shardsim::nccl_tests_lines
