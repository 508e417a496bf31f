#include "simulator/cli/import_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "reports/output.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/validate.h"

namespace shardsim::cli {

namespace {

namespace fs = std::filesystem;

// A scenario reads its file paths (model.hf_config, a cluster.gpu profile) relative to its own
// folder, while the user gave them relative to the working directory. Each is rewritten relative
// to `folder` (output_folder: the written file's, links followed), or made absolute when the
// scenario goes to stdout (folder empty). An absolute path stays as given.
void rebase_paths(nlohmann::json& scenario, const std::string& folder) {
  auto rebase = [&](nlohmann::json& section, const char* key, bool always_a_path) {
    const auto it = section.find(key);
    if (it == section.end() || !it->is_string()) return;
    const std::string given = it->get<std::string>();
    if (!always_a_path && given.find('/') == std::string::npos && !given.ends_with(".json"))
      return;  // a preset name
    if (given.empty() || fs::path(given).is_absolute()) return;
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(given), ec);
    if (ec) p = fs::absolute(given).lexically_normal();
    if (!folder.empty()) {
      const fs::path rel = p.lexically_relative(folder);
      if (!rel.empty()) p = rel;
    }
    *it = p.string();
  };
  if (scenario.contains("model")) rebase(scenario["model"], "hf_config", true);
  if (scenario.contains("cluster")) rebase(scenario["cluster"], "gpu", false);
}

}  // namespace

int run_import(const ImportArgs& a) {
  check_outputs({{"-o", a.output}},
                {{"CONFIG", a.config}, {"--model", a.target.model}, {"--gpu", a.target.gpu}});
  ImportResult r = a.kind == "deepspeed"
                       ? import_deepspeed(read_json_file(a.config), a.target, a.config)
                       : import_megatron(a.args, a.target);
  const std::string folder = output_folder(a.output);
  rebase_paths(r.scenario, folder);
  // What is written must load, from where it is written: every problem of the imported scenario
  // is reported now (exit 2), saying that the paths are the scenario's keys, not the input's.
  try {
    // The loaded scenario's own warnings (an unfitted profile, a sliding window unfused attention
    // cannot use, groups placed unevenly, ...) are the imported run's too: said now, not first at
    // `simulate` (found by review, 2026-11-29: a Mistral window was mentioned nowhere on import).
    const Scenario s = scenario_from_json(r.scenario, folder);
    std::vector<std::string> found = s.warnings;
    for (auto& w : check_strategy(s).warnings) found.push_back(std::move(w));
    for (auto& w : found)
      if (std::ranges::find(r.warnings, w) == r.warnings.end()) r.warnings.push_back(std::move(w));
  } catch (const InputError& e) {
    std::vector<Diagnostic> items = e.items();
    items.push_back({"", fmt::format("the paths above are keys of the scenario imported from the "
                                     "{} {}; README \"Importing configurations\" lists which "
                                     "option sets each",
                                     a.kind == "deepspeed" ? "DeepSpeed config" : "Megatron-LM",
                                     a.kind == "deepspeed" ? a.config : "arguments")});
    throw InputError(std::move(items));
  }
  for (const auto& w : r.warnings) std::cerr << "warning: " << w << "\n";
  write_output(a.output, json_text(r.scenario, 2) + "\n");
  return kExitOk;
}

}  // namespace shardsim::cli
