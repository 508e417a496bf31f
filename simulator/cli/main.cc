// shardsim command line: parses arguments with CLI11 and dispatches to commands.cc.
// Exit codes: 0 ok, 1 a requested check failed, 2 bad input or usage, 3 runtime failure.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "reports/build_info.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/compare_command.h"
#include "simulator/cli/fit_command.h"
#include "simulator/cli/fit_options.h"
#include "simulator/cli/import_command.h"
#include "simulator/cli/search_command.h"
#include "simulator/cli/simulate_command.h"
#include "simulator/cli/suite_command.h"
#include "simulator/cli/terminal_safe_stream.h"
#include "simulator/cli/validate_command.h"
#include "simulator/cli/whole_number.h"
#include "simulator/core/diagnostics.h"
#include "simulator/cost/compute.h"
#include "simulator/suite/cases.h"

namespace {

using shardsim::cli::ScenarioArgs;

// The first option of the parsed (sub)commands given an empty value, or "": every file option
// reads "" as "not given", so `--baseline "$UNSET"` skipped a CI gate and `--trace ''` wrote
// nothing, both with exit 0 (found by review, 2026-11-28). Megatron's own arguments (ARGS) are
// its importer's to judge.
std::string option_given_empty(const CLI::App& app) {
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_type_size() == 0 || o->get_name() == "ARGS") continue;  // flags
    for (const std::string& r : o->results())
      if (r.empty()) return o->get_name();
  }
  for (const CLI::App* sub : app.get_subcommands()) {
    std::string name = option_given_empty(*sub);
    if (!name.empty()) return name;
  }
  return "";
}

void add_scenario_options(CLI::App* cmd, ScenarioArgs& a) {
  cmd->add_option("SCENARIO", a.scenario, "scenario JSON file or shipped example name")->required();
  cmd->add_option("--set", a.overrides, "override KEY=VALUE (dotted key, JSON value)")
      ->allow_extra_args(false);
  cmd->add_flag("--json", a.json, "write the JSON report (SI units)");
  cmd->add_option("-o,--output", a.output, "write the report to FILE instead of stdout");
  cmd->add_option("--check", a.checks,
                  "PATH OP VALUE on the JSON report, e.g. memory.peak_bytes<70e9 (repeatable; "
                  "exit 1 when one fails)")
      ->allow_extra_args(false);
  CLI::Option* baseline = cmd->add_option(
      "--baseline", a.baseline,
      "earlier JSON report of the same command: exit 1 when memory or step time grew, "
      "or tokens/s or MFU fell, by more than --tolerance");
  cmd->add_option("--html", a.html,
                  "also write a self-contained HTML page with SVG charts to FILE");
  cmd->add_option("--tolerance", a.tolerance,
                  "with --baseline: allowed worsening, e.g. 2% (default 1%)")
      ->needs(baseline);
}

void add_collective_options(CLI::App* cmd, shardsim::cli::CollectiveArgs& a) {
  cmd->add_option("--gpu", a.gpu, "GPU preset name or hardware profile JSON")->required();
  cmd->add_option("--op", a.op, "all_reduce|reduce_scatter|all_gather|alltoall|sendrecv|broadcast")
      ->required();
  cmd->add_option("--bytes", a.bytes, "nccl-tests size in bytes (e.g. 1e9)")->required();
  // Decimal digits only ("012" was read as octal 10: found by review, 2026-11-29); the ranges
  // are check_args' (collective_command.cc), which reports every flag at once.
  const auto digits = shardsim::cli::whole_number(0, std::numeric_limits<int>::max());
  cmd->add_option("--ranks", a.ranks, "ranks in the group")->required()->check(digits);
  cmd->add_option("--gpus-per-node", a.gpus_per_node, "default: the GPU profile's node size")
      ->check(digits)
      ->each([&a](const std::string&) { a.gpus_per_node_given = true; });
  cmd->add_option("--stride", a.stride,
                  "global ranks between group members (1: consecutive, as TP; 8: one per node)")
      ->check(digits);
  cmd->add_option("--network", a.network,
                  "cluster preset or network JSON (default: the GPU profile's node network)");
  cmd->add_option("--algorithm", a.algorithm, "auto|ring|tree|hierarchical|direct (default auto)");
  cmd->add_flag("--json", a.json, "write the JSON report (SI units)");
  cmd->add_option("-o,--output", a.output, "write the report to FILE instead of stdout");
}

void add_suite_options(CLI::App* cmd, shardsim::cli::SuiteArgs& a) {
  // The names come from the suite's own list, so a new group cannot be left out of the help.
  cmd->add_option("--group", a.groups,
                  fmt::format("{} (repeatable; default: all)",
                              fmt::join(shardsim::suite::group_names(), "|")))
      ->allow_extra_args(false);
  cmd->add_option("--mode", a.mode, "des (discrete-event, default) or analytic")
      ->check(CLI::IsMember({"des", "analytic"}));
  cmd->add_flag("--json", a.json, "write the JSON report (reports/schemas/suite-report)");
  cmd->add_option("-o,--output", a.output, "write the report to FILE instead of stdout");
  cmd->add_option("--csv", a.csv, "write every case, one row each, to FILE");
  cmd->add_option("--html", a.html, "write predicted-vs-published charts (HTML, SVG) to FILE");
  cmd->add_flag("--check-targets", a.check_targets, "exit 1 when a group misses its target");
  cmd->add_option("--fit-framework", a.fit_framework,
                  "fit a framework preset's host costs on the vTrain calibration rows (even "
                  "rows) and write it to FILE, reporting the held-out rows' error");
}

// The cost models behind `simulate`, one line each (STYLE.md: a single table lists them).
std::string cost_model_table() {
  std::string out = "Cost models:\n";
  for (const auto& m : shardsim::cost_models()) out += "  " + m.name + ": " + m.description + "\n";
  return out;
}

// Parses the command line and runs the subcommand; its exit code.
int run_command(int argc, char** argv) {
  CLI::App app{"shardsim: memory and step-time simulator for distributed LLM training"};
  app.require_subcommand(1);
  // What the reports' tool_version and build say, on the command line (there was no --version:
  // found by review, 2026-11-29).
  const nlohmann::json build = shardsim::build_json();
  app.set_version_flag(
      "--version",
      fmt::format("shardsim {} (git {}, {}, {})", shardsim::tool_version(),
                  build.value("git_revision", "unknown"), build.value("build_type", "unknown"),
                  build.value("compiler", "unknown")));

  shardsim::cli::MemoryArgs mem;
  auto* memory = app.add_subcommand("memory", "per-GPU memory of every pipeline stage");
  add_scenario_options(memory, mem.common);
  memory
      ->add_option("--estimator", mem.estimator,
                   "shardsim (full model) or deepspeed (DeepSpeed's closed-form model states)")
      ->check(CLI::IsMember({"shardsim", "deepspeed"}));

  std::string preset_kind;
  bool presets_json = false;
  auto* presets = app.add_subcommand("presets", "list shipped models, GPUs, clusters, examples");
  presets->add_option("KIND", preset_kind, "models|gpus|clusters|examples|frameworks")
      ->check(CLI::IsMember({"models", "gpus", "clusters", "examples", "frameworks"}));
  presets->add_flag("--json", presets_json, "JSON output");

  shardsim::cli::SimulateArgs sim;
  auto* simulate = app.add_subcommand("simulate", "step time, breakdown and throughput of a step");
  add_scenario_options(simulate, sim.common);
  simulate->add_option("--mode", sim.mode, "des (discrete-event, default) or analytic")
      ->check(CLI::IsMember({"des", "analytic"}));
  simulate->add_option("--trace", sim.trace, "write a Chrome trace JSON (Perfetto) of the step");
  simulate->add_flag(
      "--explain", sim.explain,
      "list the seconds each effect of the step-time model adds (each switched off in turn)");
  simulate->add_flag("--ops", sim.ops,
                     "list each op's seconds per pass and the rate it reaches (one block of each "
                     "kind, the embedding and the output layer)");
  simulate->footer(cost_model_table());
  shardsim::cli::SearchArgs srch;
  auto* search = app.add_subcommand(
      "search", "the fastest parallel plans that fit (analytic over the space, DES on the top K)");
  add_scenario_options(search, srch.common);
  search->add_option("--top", srch.top, "plans re-ranked by the DES and reported (default 10)")
      ->check(shardsim::cli::whole_number(1, 1000));
  search->add_option("--csv", srch.csv, "write the top plans, one row each, to FILE");
  search->add_option("--threads", srch.threads, "threads (default: the machine's; same output)")
      ->check(shardsim::cli::whole_number(1, 1024));
  shardsim::cli::ImportArgs imp;
  auto* import_cmd = app.add_subcommand(
      "import", "write a scenario from a DeepSpeed config or a Megatron-LM argument list");
  import_cmd->require_subcommand(1);
  // model_required: DeepSpeed, whose config names neither the model nor the sequence length
  auto add_target = [&imp](CLI::App* c, bool model_required) {
    auto* m =
        c->add_option("--model", imp.target.model, "model preset or Hugging Face config.json path");
    if (model_required) m->required();
    c->add_option("--gpu", imp.target.gpu, "GPU preset or hardware profile JSON")->required();
    c->add_option("--gpus", imp.target.gpus, "the job's world size (GPUs)")
        ->required()
        ->check(shardsim::cli::whole_number(1, 1 << 24));
    c->add_option("--gpus-per-node", imp.target.gpus_per_node,
                  "default: the GPU preset's node size")
        ->check(shardsim::cli::whole_number(1, 1 << 16));
    auto* seq = c->add_option("--seq-len", imp.target.seq_len,
                              model_required ? "sequence length (tokens)"
                                             : "sequence length (tokens; default: --seq-length)")
                    ->check(shardsim::cli::whole_number(1, 1LL << 30));
    if (model_required) seq->required();  // --help said optional (review, 2026-11-28)
    c->add_option("-o,--output", imp.output, "write the scenario to FILE instead of stdout");
  };
  auto* import_ds = import_cmd->add_subcommand("deepspeed", "from a DeepSpeed config JSON");
  import_ds->add_option("DS_CONFIG", imp.config, "DeepSpeed config file")->required();
  add_target(import_ds, true);
  auto* import_mg = import_cmd->add_subcommand(
      "megatron",
      "from Megatron-LM arguments, given after --: shardsim import megatron --gpu "
      "h100-sxm --gpus 64 -- --num-layers 32 ...");
  add_target(import_mg, false);
  import_mg->add_option("ARGS", imp.args, "Megatron-LM arguments (after --)");
  shardsim::cli::CompareArgs cmp;
  auto* compare = app.add_subcommand(
      "compare", "the scenario over the cross product of varied keys, side by side");
  add_scenario_options(compare, cmp.common);
  compare
      ->add_option("--vary", cmp.vary,
                   "KEY=V1,V2,... (dotted scenario key, values as --set takes them; repeatable)")
      ->required()
      ->allow_extra_args(false);
  compare->add_option("--mode", cmp.mode, "des (discrete-event, default) or analytic")
      ->check(CLI::IsMember({"des", "analytic"}));
  compare->add_option("--csv", cmp.csv, "write one row per variant to FILE");
  compare->add_option("--threads", cmp.threads, "threads (default: the machine's; same output)")
      ->check(shardsim::cli::whole_number(1, 1024));
  shardsim::cli::CalibrateArgs cal;
  auto* calibrate = app.add_subcommand(
      "calibrate",
      "measure kernels (under mpirun/srun for collectives) and fit a hardware profile");
  add_calibrate_options(calibrate, cal);
  shardsim::cli::FitArgs fit;
  auto* fit_cmd = app.add_subcommand(
      "fit", "fit a hardware profile from nccl-tests logs, GEMM CSVs and calibration samples");
  add_fit_options(fit_cmd, fit);
  shardsim::cli::ValidateArgs val;
  auto* validate = app.add_subcommand(
      "validate", "measure a composite training step and kernels, compare with predictions");
  validate->add_option("--profile", val.profile, "hardware profile JSON")->required();
  validate->add_option("--backend", val.backend, "cpu or cuda")
      ->required()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  validate->add_flag("--quick", val.quick, "shorter timing (about 20 s with 2 ranks on 2 cores)");
  validate->add_flag("--json", val.json, "write the JSON report (SI units)");
  validate->add_option("-o,--output", val.output, "write the report to FILE instead of stdout");
  shardsim::cli::SuiteArgs suite_args;
  auto* suite = app.add_subcommand(
      "suite", "predictions against published runs and closed-form memory cases, with errors");
  add_suite_options(suite, suite_args);
  shardsim::cli::CollectiveArgs coll;
  auto* collective = app.add_subcommand(
      "collective", "predicted time of one collective (nccl-tests size, algbw and busbw)");
  add_collective_options(collective, coll);

  // A first word that is no command was "A subcommand is required", without naming the word
  // (found by review, 2026-11-28).
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (std::ranges::find(names, std::string(argv[1])) == names.end()) {
      std::cerr << "error: \"" << argv[1] << "\" is not a command; the commands are "
                << fmt::format("{}", fmt::join(names, ", ")) << " (--help says what each does)\n";
      return shardsim::kExitBadInput;
    }
  }
  // The same for import's kind ("import bogus" said "A subcommand is required").
  if (argc > 2 && std::string_view(argv[1]) == "import" && argv[2][0] != '-') {
    std::vector<std::string> kinds;
    for (const CLI::App* sub : import_cmd->get_subcommands({})) kinds.push_back(sub->get_name());
    if (std::ranges::find(kinds, std::string(argv[2])) == kinds.end()) {
      std::cerr << "error: \"" << argv[2] << "\" is not an import kind; the kinds are "
                << fmt::format("{}", fmt::join(kinds, ", ")) << " (import --help says what each "
                << "reads)\n";
      return shardsim::kExitBadInput;
    }
  }
  // import megatron: what follows "--" is Megatron's command line, handed over as written (CLI11
  // splits a value written as a list, "[1,1,1,0]", a --window-attn-skip-freq pattern, into its
  // items; found by review, 2026-11-29).
  int parsed_argc = argc;
  std::vector<std::string> megatron_tail;
  if (argc > 2 && std::string_view(argv[1]) == "import" && std::string_view(argv[2]) == "megatron")
    for (int i = 3; i < argc; ++i)
      if (std::string_view(argv[i]) == "--") {
        megatron_tail.assign(argv + i + 1, argv + argc);
        parsed_argc = i;
        break;
      }
  try {
    app.parse(parsed_argc, argv);
    // after any words CLI11 took as ARGS before the "--"
    imp.args.insert(imp.args.end(), megatron_tail.begin(), megatron_tail.end());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return shardsim::kExitBadInput;
  }
  if (const std::string empty = option_given_empty(app); !empty.empty()) {
    std::cerr << "error: " << empty << ": empty value; give a file name or value, or leave the "
              << "option out\n";
    return shardsim::kExitBadInput;
  }
  try {
    if (*memory) return shardsim::cli::run_memory(mem);
    if (*presets) return shardsim::cli::run_presets(preset_kind, presets_json);
    if (*collective) return shardsim::cli::run_collective(coll);
    if (*simulate) return shardsim::cli::run_simulate(sim);
    if (*compare) return shardsim::cli::run_compare(cmp);
    if (*search) return shardsim::cli::run_search(srch);
    if (*import_cmd) {
      imp.kind = *import_ds ? "deepspeed" : "megatron";
      return shardsim::cli::run_import(imp);
    }
    if (*calibrate) return shardsim::cli::run_calibrate(cal);
    if (*fit_cmd) return shardsim::cli::run_fit(fit);
    if (*validate) return shardsim::cli::run_validate(val);
    if (*suite) return shardsim::cli::run_suite(suite_args);
  } catch (const shardsim::InputError& e) {
    std::cerr << e.what();
    return shardsim::kExitBadInput;
  } catch (const shardsim::OutputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return shardsim::kExitRuntime;
  } catch (const std::exception& e) {
    // Not an input problem: a bug or an exhausted resource (exit code 3, runtime failure).
    std::cerr << "error: internal failure: " << e.what() << "\n";
    return shardsim::kExitRuntime;
  }
  return shardsim::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  std::streambuf* const stderr_buf = std::cerr.rdbuf();
  shardsim::cli::TerminalSafeBuf safe_stderr(stderr_buf);
  std::cerr.rdbuf(&safe_stderr);
  struct Restore {
    std::streambuf* buf;
    ~Restore() { std::cerr.rdbuf(buf); }
  } restore{stderr_buf};
  const int rc = run_command(argc, argv);
  // Output that never arrived is a failure, whoever printed it (a full disk behind > FILE,
  // /dev/full, a closed pipe): exit 3 instead of 0.
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0) {
    // An output error (exit 3) has said so already: standard output is one of the outputs.
    if (rc != shardsim::kExitRuntime)
      std::cerr << "error: cannot write to standard output: " << std::strerror(errno) << "\n";
    return rc == shardsim::kExitBadInput ? rc : shardsim::kExitRuntime;
  }
  return rc;
}
