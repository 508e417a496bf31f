// Helpers shared by the tests that drive built programs through the shell (the MPI end-to-end
// tests): run a command, read a file, build an mpirun prefix, validate documents against their
// JSON Schemas.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace shardsim::test_util {

// Runs a shell command; returns its exit status (-1 when it did not exit normally).
inline int run(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// "<mpiexec> --allow-run-as-root --oversubscribe -np N " (Open MPI refuses root without the
// first flag, and CI machines have fewer cores than some tests' ranks without the second).
inline std::string mpirun(const std::string& mpiexec, int np) {
  return mpiexec + " --allow-run-as-root --oversubscribe -np " + std::to_string(np) + " ";
}

// True when SHARDSIM_STRICT_TIMING=1: the tests that time real work on the machine they run on
// (the MPI calibration and validation runs) then also hold it to the wall-time and
// accuracy targets. Off by default: a shared CI machine's load can slow one kernel 2x between
// the sweep and validate, so those targets are checked on a quiet machine (README "Validating
// predictions") and in tests/bench/calibrate_bench.cc, never as a default test's pass condition.
inline bool strict_timing() {
  const char* v = std::getenv("SHARDSIM_STRICT_TIMING");
  return v != nullptr && std::string(v) == "1";
}

// Validates documents against their schemas with a real JSON Schema validator
// (tests/golden/validate_reports.py --documents, Debian's python3-jsonschema): `kind_files` are
// "KIND=FILE" (KIND: reports/schemas/KIND.schema.json). Returns "" when every document conforms,
// "skipped" when python3 (exit 127) or python3-jsonschema (77) is absent, else the validator's
// output.
inline std::string schema_violations(const std::string& python, const std::string& source_dir,
                                     const std::vector<std::string>& kind_files) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("shardsim_schema_check_" + std::to_string(::getpid()) + ".txt");
  std::string cmd =
      python + " " + source_dir + "/tests/golden/validate_reports.py --documents " + source_dir;
  for (const auto& kf : kind_files) cmd += " '" + kf + "'";
  const int rc = run(cmd + " > " + out.string() + " 2>&1");
  const std::string text = slurp(out);
  std::filesystem::remove(out);
  if (rc == 0) return "";
  if (rc == 77 || rc == 127) return "skipped";
  return "exit " + std::to_string(rc) + ": " + text;
}

}  // namespace shardsim::test_util
