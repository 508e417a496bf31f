// The CLI's subcommands. Each returns a process exit code (core/diagnostics.h) and throws
// InputError for bad input (mapped to exit code 2 by main).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardsim {
struct Scenario;
}

namespace shardsim::cli {

// Outputs as (path, text) pairs (reports/output.h write_outputs).
using OutputList = std::vector<std::pair<std::string, std::string>>;

struct ScenarioArgs {
  std::string scenario;                // path or shipped example name
  std::vector<std::string> overrides;  // --set KEY=VALUE
  bool json = false;
  std::string output;               // -o FILE; empty = stdout
  std::vector<std::string> checks;  // --check EXPR (reports/gates.h)
  std::string baseline;             // --baseline OLD.json
  std::string tolerance = "1%";     // --tolerance P% (with --baseline)
  std::string html;                 // --html FILE
};

// The outputs of `a` (-o, --html) and `more` as (flag, path) pairs for check_outputs
// (reports/output.h), which every command runs before any work.
std::vector<std::pair<std::string, std::string>> outputs_of(
    const ScenarioArgs& a, const std::vector<std::pair<std::string, std::string>>& more = {});
// The files a scenario command reads that no output may replace ((flag, path) pairs): the
// scenario.
std::vector<std::pair<std::string, std::string>> inputs_of(const ScenarioArgs& a);

// Writes the report (JSON or text, as asked) and runs the CI gates of `a` on its JSON: the
// outcomes go to stderr, and the exit code is 1 when one fails, else 0. Bad gates (a malformed
// expression, a path the report lacks, an unreadable baseline) throw InputError before anything
// is written.
// With --html, `html` (built only when asked) is written to that file too, and `more_outputs` (a
// command's other outputs as (path, text), e.g. --csv, --trace) is called once the gates are
// known to be well formed. All of them are written as one (write_outputs): a failure leaves
// every file as it was.
// `command` names the report's command for the gates (run_checks).
int write_report_with_gates(const ScenarioArgs& a, std::string_view command,
                            const nlohmann::json& report, const std::string& text,
                            const std::function<std::string()>& html = nullptr,
                            const std::function<OutputList()>& more_outputs = nullptr);

struct MemoryArgs {
  ScenarioArgs common;
  std::string estimator = "shardsim";  // or "deepspeed": DeepSpeed's closed-form model states
};

// shardsim collective: the predicted time of one collective (nccl-tests conventions for size,
// algbw and busbw).
struct CollectiveArgs {
  std::string gpu;        // GPU preset name or hardware profile JSON path
  std::string network;    // cluster preset name or network JSON path; empty = the GPU's default
  std::string op;         // all_reduce, reduce_scatter, all_gather, alltoall, sendrecv, broadcast
  double bytes = 0;       // nccl-tests "size", bytes
  int ranks = 0;          // group size
  int gpus_per_node = 0;  // 0 = the GPU profile's node size
  bool gpus_per_node_given = false;
  long long stride = 1;  // global ranks between group members (1 = consecutive, as TP)
  std::string algorithm = "auto";
  bool json = false;
  std::string output;  // -o FILE; empty = stdout
};

int run_memory(const MemoryArgs& a);
int run_collective(const CollectiveArgs& a);
int run_presets(const std::string& kind, bool json);

}  // namespace shardsim::cli
