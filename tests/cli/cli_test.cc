// End-to-end tests of the shardsim command line (DESIGN.md "Command line"): the built binary is
// run with posix_spawn (no shell, so no quoting), stdout and stderr go to temporary files, and the
// exit status is checked against the contract: 0 ok, 2 bad input or usage; errors on stderr,
// reports on stdout or -o. The bad-scenario catalogue lives in tests/data/bad_scenarios/, with
// the expected JSON pointer, message fragment and the reason for every file in expectations.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace {

using namespace cli_test;

// ---------------------------------------------------------------------------------------------
// Bad scenario catalogue

struct BadCase {
  std::string file;
  std::string why;
  int error_count = 0;
  std::vector<std::pair<std::string, std::string>> errors;  // (JSON pointer, message fragment)
};

void PrintTo(const BadCase& c, std::ostream* os) {
  *os << c.file;
}

std::vector<BadCase> load_catalogue() {
  std::vector<BadCase> cases;
  const json j = json::parse(read_file(kBadDir / "expectations.json"), nullptr, false);
  if (!j.is_object() || !j.contains("cases")) return cases;  // CoversEveryFile then fails
  for (const auto& c : j["cases"]) {
    BadCase b;
    b.file = c.value("file", "");
    b.why = c.value("why", "");
    b.error_count = c.value("error_count", 0);
    for (const auto& e : c.value("errors", json::array()))
      b.errors.emplace_back(e.value("pointer", ""), e.value("fragment", ""));
    cases.push_back(b);
  }
  return cases;
}

class BadScenario : public ::testing::TestWithParam<BadCase> {};

// Every bad file: exit 2 (bad input), nothing on stdout, each expected problem on its own stderr
// line naming the JSON pointer, no follow-on errors beyond error_count, no NaN anywhere.
TEST_P(BadScenario, ExitsTwoAndNamesTheField) {
  const BadCase& c = GetParam();
  SCOPED_TRACE(c.file + ": " + c.why);
  const std::vector<std::string> args = {"memory", (kBadDir / c.file).string()};
  const Result r = shardsim(args);
  EXPECT_EQ(r.exit_code, 2) << describe(args) << " (128 + N: killed by signal N)\nstderr:\n"
                            << r.err;
  EXPECT_EQ(r.out, "") << "a failed run writes no report";
  ASSERT_FALSE(c.errors.empty()) << "expectations.json lists no error for " << c.file;
  for (const auto& [pointer, fragment] : c.errors)
    EXPECT_TRUE(has_error_line(r.err, pointer, fragment))
        << "expected a line 'error: " << pointer << ": ...' containing '" << fragment
        << "'\nstderr:\n"
        << r.err;
  EXPECT_EQ(count_error_lines(r.err), c.error_count) << "stderr:\n" << r.err;
  EXPECT_FALSE(has_nan_or_inf(r.err)) << r.err;
  // JSON mode fails the same way: the error is found before any report is written.
  const Result rj = shardsim({"memory", (kBadDir / c.file).string(), "--json"});
  EXPECT_EQ(rj.exit_code, 2);
  EXPECT_EQ(rj.out, "");
  EXPECT_EQ(rj.err, r.err) << "--json must not change the diagnostics";
}

// gtest names: the file's stem with every non-alphanumeric character as '_'.
std::string case_name(const ::testing::TestParamInfo<BadCase>& param) {
  std::string name = fs::path(param.param.file).stem().string();
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(cli, BadScenario, ::testing::ValuesIn(load_catalogue()), case_name);

// The catalogue and its expectations list the same files; the brief asks for at least 25, and
// one of them must hold several problems.
TEST(cli_catalogue, CoversEveryFile) {
  const auto cases = load_catalogue();
  std::set<std::string> listed, on_disk;
  bool has_multi = false;
  for (const auto& c : cases) {
    EXPECT_TRUE(listed.insert(c.file).second) << c.file << " listed twice";
    EXPECT_FALSE(c.why.empty()) << c.file << " has no explanation";
    EXPECT_LE(int(c.errors.size()), c.error_count) << c.file;
    has_multi = has_multi || c.errors.size() >= 3;
  }
  for (const auto& entry : fs::directory_iterator(kBadDir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".json" && name != "expectations.json") on_disk.insert(name);
  }
  EXPECT_EQ(listed, on_disk);
  EXPECT_GE(on_disk.size(), 25u);
  EXPECT_TRUE(has_multi) << "one file must prove that several problems are reported together";
}

// ---------------------------------------------------------------------------------------------
// --set overrides

TEST(cli_set, TpChangesThePlan) {
  const Result base = shardsim({"memory", kExample, "--json"});
  const Result tp4 = shardsim({"memory", kExample, "--json", "--set", "parallel.tp=4"});
  ASSERT_EQ(base.exit_code, 0) << base.err;
  ASSERT_EQ(tp4.exit_code, 0) << tp4.err;
  const json b = parse_report(base), t = parse_report(tp4);
  EXPECT_EQ(b["plan"]["tp"], 2);  // the example's own tp
  EXPECT_EQ(t["plan"]["tp"], 4);  // the override
  EXPECT_EQ(t["plan"]["dp"], 2);  // 8 GPUs / (tp 4 * pp 1 * cp 1)
  EXPECT_EQ(t["scenario"]["parallel"]["tp"], 4) << "the report echoes the resolved input";
  // Doubling tp halves each rank's share of the (TP-sharded) weights, so params bytes change.
  EXPECT_NE(b["memory"]["ranks"][0]["params_bytes"], t["memory"]["ranks"][0]["params_bytes"]);
}

TEST(cli_set, NonIntegerValueNamesTheField) {
  // "abc" is not JSON, so it is taken as the bare string "abc"; seq_len needs an integer.
  const Result r = shardsim({"memory", kExample, "--set", "training.seq_len=abc"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(has_error_line(r.err, "/training/seq_len", "got string \"abc\"")) << r.err;
}

TEST(cli_set, BareAndQuotedGpuStringsMatchThePreset) {
  // The example already runs on h100-sxm, so naming it again, bare or as a JSON string, must
  // give the very same report.
  const Result base = shardsim({"memory", kExample, "--json"});
  const Result bare = shardsim({"memory", kExample, "--json", "--set", "cluster.gpu=h100-sxm"});
  const Result quoted =
      shardsim({"memory", kExample, "--json", "--set", "cluster.gpu=\"h100-sxm\""});
  EXPECT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_EQ(quoted.exit_code, 0) << quoted.err;
  EXPECT_EQ(bare.out, base.out);
  EXPECT_EQ(quoted.out, base.out);
}

TEST(cli_set, BareGpuStringSelectsAnotherPreset) {
  const Result r = shardsim({"memory", kExample, "--json", "--set", "cluster.gpu=h200-sxm"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // h200-sxm preset: memory_bytes 150109880320 (139.8 GiB), the total memory the CUDA runtime
  // reported on the H200 of shardsim's own sweep (context.backend.device.memory_bytes of
  // scenarios/measurements/calibrate/h200-sxm-2026-11-27-run2/sweep-gemm-bf16.samples.json), not
  // the datasheet preset's 141 GiB = 151397597184 (the '141GB' of the name taken as GiB).
  EXPECT_EQ(parse_report(r)["memory"]["capacity_bytes"].get<double>(), 150109880320.0);
}

TEST(cli_set, GpuProfilePathEqualsPresetName) {
  // A hardware profile path and the preset name of the same file describe the same GPU.
  const std::string path = std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/gpus/h200-sxm.json";
  const Result by_path = shardsim({"memory", kExample, "--json", "--set", "cluster.gpu=" + path});
  const Result by_name = shardsim({"memory", kExample, "--json", "--set", "cluster.gpu=h200-sxm"});
  ASSERT_EQ(by_path.exit_code, 0) << by_path.err;
  EXPECT_EQ(parse_report(by_path)["memory"], parse_report(by_name)["memory"]);
}

// cluster.network takes a network JSON file too, as cluster.gpu takes a profile (found by review,
// 2026-11-27: the file `fit --network-output` writes could only be pasted inline): the preset's
// file gives the same step as its name, and a missing file names /cluster/network.
TEST(cli_set, NetworkPathEqualsPresetName) {
  const std::string path = std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/clusters/dgx-h100.json";
  const Result by_path =
      shardsim({"simulate", kExample, "--json", "--set", "cluster.network=" + path});
  const Result by_name =
      shardsim({"simulate", kExample, "--json", "--set", "cluster.network=dgx-h100"});
  ASSERT_EQ(by_path.exit_code, 0) << by_path.err;
  EXPECT_EQ(parse_report(by_path)["time"], parse_report(by_name)["time"]);
  const Result missing =
      shardsim({"simulate", kExample, "--set", "cluster.network=/nonexistent/net.json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(has_error_line(missing.err, "/cluster/network", "no such file")) << missing.err;
}

// A model read from a Hugging Face config is named after the checkout's folder, or the file's
// stem; "../cfg.json" named it ".." (found by review, 2026-11-27).
TEST(cli_set, HfConfigModelNameFromAnUpwardPath) {
  const fs::path dir = scratch_dir() / "hf_name", sub = dir / "sub";
  fs::create_directories(sub);
  fs::copy_file(std::string(SHARDSIM_SOURCE_DIR) + "/tests/data/hf/llama3_8b.json",
                dir / "cfg.json", fs::copy_options::overwrite_existing);
  std::ofstream(sub / "s.json")
      << R"({"model": {"hf_config": "../cfg.json"}, "training": {"seq_len": 1024,
            "global_batch": 8}, "cluster": {"gpu": "h100-sxm"}})";
  const Result r = shardsim({"memory", (sub / "s.json").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(parse_report(r)["scenario"]["model"]["name"], "cfg");
}

// The report's scenario is the resolved input (DESIGN.md): a scenario without a parallel section
// and with defaulted keys reports every default and derived value, and simulating that
// scenario again gives the same report (found by review, 2026-11-27: parallel was missing, and a
// defaulted kv_heads or micro_batch was not shown).
TEST(cli_set, ReportScenarioIsTheResolvedInputAndRunsAgain) {
  const fs::path in = scratch_dir() / "bare.json";
  std::ofstream(in) << R"({"model": {"layers": 2, "hidden": 256, "heads": 4, "vocab": 1000},
      "training": {"seq_len": 1024, "global_batch": 8}, "cluster": {"gpu": "h100-sxm"}})";
  const Result a = shardsim({"simulate", in.string(), "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const json sc = parse_report(a)["scenario"];
  // 8 GPUs of one node, tp 1 by default: dp = 8.
  EXPECT_EQ(sc["parallel"]["dp"], 8);
  EXPECT_EQ(sc["parallel"]["tp"], 1);
  EXPECT_EQ(sc["training"]["micro_batch"], 1);
  EXPECT_EQ(sc["training"]["precision"], "bf16");
  EXPECT_EQ(sc["model"]["kv_heads"], 4);  // MHA: the heads
  EXPECT_EQ(sc["cluster"]["gpus_per_node"], 8);
  const fs::path again = scratch_dir() / "bare_resolved.json";
  std::ofstream(again) << sc.dump();
  const Result b = shardsim({"simulate", again.string(), "--json"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(parse_report(b)["time"], parse_report(a)["time"]);
  EXPECT_EQ(parse_report(b)["memory"], parse_report(a)["memory"]);
}

TEST(cli_set, MalformedAssignmentsAreUsageErrors) {
  // No '=', an empty key and an empty key part: each is a bad --set (exit 2, no report).
  for (const std::string bad : {"foo", "=4", "parallel..tp=4"}) {
    const Result r = shardsim({"memory", kExample, "--set", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(r.out, "") << bad;
    EXPECT_TRUE(contains(r.err, "--set")) << bad << ": " << r.err;
  }
  const Result r = shardsim({"memory", kExample, "--set", "foo"});
  EXPECT_TRUE(contains(r.err, "expected KEY=VALUE")) << r.err;
}

TEST(cli_set, UnknownKeyGetsASuggestion) {
  // "tpp" is one edit from "tp": the strict reader rejects it with the pointer and a suggestion.
  const Result r = shardsim({"memory", kExample, "--set", "parallel.tpp=4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has_error_line(r.err, "/parallel/tpp", "did you mean \"tp\"?")) << r.err;
}

// ---------------------------------------------------------------------------------------------
// Scenario argument and output file

TEST(cli_scenario, UnknownNameListsTheExamples) {
  const Result r = shardsim({"memory", "llama3-8b-8xh10"});  // one character short of the example
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, "neither a readable file nor a shipped example")) << r.err;
  const auto names = example_names();
  EXPECT_GE(names.size(), 1u);
  for (const auto& n : names) EXPECT_TRUE(contains(r.err, n)) << n << " not listed: " << r.err;
}

TEST(cli_scenario, MissingFile) {
  const std::string path = (scratch_dir() / "no_such_dir" / "scenario.json").string();
  const Result r = shardsim({"memory", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, path)) << "the message names the path: " << r.err;
}

TEST(cli_output, MissingDirectoryIsAnErrorAndCreatesNothing) {
  const fs::path dir = scratch_dir() / "missing_out_dir";
  const fs::path file = dir / "report.json";
  const Result r = shardsim({"memory", kExample, "--json", "-o", file.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "") << "the report goes to -o or nowhere";
  EXPECT_TRUE(contains(r.err, file.string())) << r.err;
  EXPECT_FALSE(fs::exists(dir)) << "the directory must not be created";
}

TEST(cli_output, WritesTheSameBytesAsStdout) {
  for (const bool json_mode : {false, true}) {
    std::vector<std::string> args = {"memory", kExample};
    if (json_mode) args.push_back("--json");
    const Result to_stdout = shardsim(args);
    const fs::path file = scratch_dir() / (json_mode ? "report.json" : "report.txt");
    args.insert(args.end(), {"-o", file.string()});
    const Result to_file = shardsim(args);
    ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
    ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
    EXPECT_EQ(to_file.out, "") << "with -o nothing goes to stdout";
    EXPECT_FALSE(to_stdout.out.empty());
    EXPECT_EQ(read_file(file), to_stdout.out) << describe(args);
    EXPECT_FALSE(fs::exists(file.string() + ".tmp")) << "no temporary left behind";
  }
}

// ---------------------------------------------------------------------------------------------
// JSON report

TEST(cli_json, HasTheContractKeys) {
  const Result r = shardsim({"memory", kExample, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const json j = parse_report(r);
  // DESIGN.md "Report keys": the memory report carries these.
  for (const char* key :
       {"schema_version", "tool_version", "scenario", "model", "memory", "warnings"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_TRUE(j["model"]["parameters"].is_number());
  // llama3-8b: 8.03e9 parameters (Meta's "8B"); the exact count is the model tests' business.
  EXPECT_NEAR(j["model"]["parameters"].get<double>(), 8.03e9, 0.01e9);
  const json& m = j["memory"];
  EXPECT_TRUE(m["capacity_bytes"].is_number());
  // h100-sxm: the device total its measured H100 reported (calibrate/h100-sxm-2026-11-28
  // device-query.txt: 85,017,493,504 B = 79.2 GiB, not the marketed 80 GiB)
  EXPECT_EQ(m["capacity_bytes"].get<double>(), 85017493504.0);
  EXPECT_TRUE(m["peak_bytes"].is_number());
  EXPECT_TRUE(m["fits"].is_boolean());
  EXPECT_TRUE(m["host_bytes"].is_number());
  EXPECT_TRUE(j["warnings"].is_array());
  ASSERT_TRUE(m["ranks"].is_array());
  ASSERT_EQ(m["ranks"].size(), 1u);  // pp = 1: one pipeline stage
  for (const auto& rank : m["ranks"])
    for (const char* key : {"pp_stage", "params_bytes", "grads_bytes", "optimizer_bytes",
                            "activations_bytes", "overhead_bytes", "total_bytes"})
      EXPECT_TRUE(rank.contains(key) && rank[key].is_number()) << key;
  EXPECT_FALSE(has_null(j["memory"])) << "NaN is written as null";
  EXPECT_FALSE(has_null(j["model"]));
}

TEST(cli_json, IsDeterministic) {
  for (const bool json_mode : {false, true}) {
    std::vector<std::string> args = {"memory", kExample};
    if (json_mode) args.push_back("--json");
    const Result a = shardsim(args), b = shardsim(args);
    ASSERT_EQ(a.exit_code, 0) << a.err;
    EXPECT_EQ(a.out, b.out) << describe(args) << " differs between two runs";
  }
}

// Every shipped example runs in text and JSON mode with no NaN, and every rank's total is the sum
// of its five categories (params, grads, optimizer, activations, overhead), peak the largest total.
TEST(cli_json, ExamplesRunAndRankTotalsAddUp) {
  const auto names = example_names();
  ASSERT_GE(names.size(), 4u);  // the four examples shipped with the memory command
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const Result text = shardsim({"memory", name});
    EXPECT_EQ(text.exit_code, 0) << text.err;
    EXPECT_FALSE(has_nan_or_inf(text.out)) << text.out;
    const Result r = shardsim({"memory", name, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(has_nan_or_inf(r.out));
    const json j = parse_report(r);
    EXPECT_FALSE(has_null(j["memory"])) << "NaN is written as null";
    double peak = 0;
    for (const auto& rank : j["memory"]["ranks"]) {
      double sum = 0;
      for (const char* key : {"params_bytes", "grads_bytes", "optimizer_bytes", "activations_bytes",
                              "overhead_bytes"}) {
        EXPECT_GE(rank[key].get<double>(), 0.0) << key;
        sum += rank[key].get<double>();
      }
      // Byte counts near 1e11 are exact in a double to well below a byte; allow 1 byte for the
      // order of summation.
      EXPECT_NEAR(rank["total_bytes"].get<double>(), sum, 1.0) << "stage " << rank["pp_stage"];
      peak = std::max(peak, rank["total_bytes"].get<double>());
    }
    EXPECT_EQ(j["memory"]["peak_bytes"].get<double>(), peak);
  }
}

TEST(cli_json, NotFittingIsAResultNotAnError) {
  // llama3-70b without ZeRO on one node of 8 H100s: 16 bytes per parameter x 70.6e9 / tp 1
  // = 1.13e12 bytes of model states alone, far above 80 GiB = 8.6e10.
  const Result r = shardsim({"memory", "llama3-70b-fsdp-64xh100", "--json", "--set",
                             "parallel.zero=0", "--set", "cluster.nodes=1"});
  ASSERT_EQ(r.exit_code, 0) << "not fitting is a result (exit 0): " << r.err;
  const json j = parse_report(r);
  EXPECT_EQ(j["plan"]["dp"], 8);  // 8 GPUs, tp = pp = cp = 1
  EXPECT_EQ(j["memory"]["fits"], false);
  EXPECT_GT(j["memory"]["peak_bytes"].get<double>(), 16 * 70e9);
  EXPECT_GT(j["memory"]["peak_bytes"].get<double>(), j["memory"]["capacity_bytes"].get<double>());
  ASSERT_TRUE(j["memory"]["reason"].is_string());
  EXPECT_FALSE(j["memory"]["reason"].get<std::string>().empty());
}

// ---------------------------------------------------------------------------------------------
// Commands and usage

TEST(cli_usage, PresetsListTheContractNames) {
  const Result r = shardsim({"presets", "models"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "llama3-8b"));
  // A summary is the first sentence; "e.g." does not end it (found by review: the cuda-graphs
  // framework's line stopped at "A stack that replays CUDA graphs (e.g").
  const Result f = shardsim({"presets", "frameworks"});
  EXPECT_FALSE(contains(f.out, "(e.g\n")) << f.out;
  EXPECT_TRUE(contains(f.out, "(e.g. ")) << f.out;
  // DESIGN.md: preset names that must exist.
  const Result all = shardsim({"presets", "--json"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const json j = parse_report(all);
  auto names = [&](const char* kind) {
    std::set<std::string> s;
    for (const auto& e : j[kind]) s.insert(e["name"].get<std::string>());
    return s;
  };
  const auto models = names("models"), gpus = names("gpus");
  for (const char* m : {"gpt3-175b", "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b",
                        "llama3-70b", "llama3-405b", "mixtral-8x7b", "deepseek-v3"})
    EXPECT_TRUE(models.count(m)) << m;
  for (const char* g : {"v100-sxm-32gb", "a100-sxm-40gb", "a100-sxm-80gb", "h100-sxm", "h200-sxm",
                        "b200", "mi300x"})
    EXPECT_TRUE(gpus.count(g)) << g;
}

TEST(cli_usage, BadCommandLinesExitTwo) {
  // No subcommand, an unknown subcommand, memory without SCENARIO, an unknown flag, a bad KIND.
  const std::vector<std::vector<std::string>> bad = {
      {}, {"frobnicate"}, {"memory"}, {"memory", kExample, "--bogus"}, {"presets", "bogus"}};
  for (const auto& args : bad) {
    const Result r = shardsim(args);
    EXPECT_EQ(r.exit_code, 2) << describe(args);
    EXPECT_EQ(r.out, "") << describe(args) << ": usage errors go to stderr";
    EXPECT_FALSE(r.err.empty()) << describe(args);
  }
}

// A count option takes a whole number in decimal digits (simulator/cli/whole_number.h). CLI11's
// Range said "Value 1e1 not in range 1 to 1000" of --top, though 10 is in range (found by review,
// 2026-11-29): the message now says what is wrong with the text, or names the range.
TEST(cli_usage, CountOptionsSayWhyAValueIsRefused) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1e1",
       "--top: expected a whole number from 1 to 1000 in decimal digits (no leading zero "
       "or sign), got \"1e1\""},
      {"abc", "got \"abc\""},
      {"2.5", "got \"2.5\""},
      {"012", "got \"012\""},  // CLI11 would read octal 10
      {"-3", "got \"-3\""},
      {"0", "--top: 0 is out of range 1 to 1000"},
      {"5000", "--top: 5000 is out of range 1 to 1000"},
      {"99999999999999999999", "--top: 99999999999999999999 is out of range 1 to 1000"}};
  for (const auto& [value, message] : cases) {
    const Result r = shardsim({"search", kExample, "--top", value});
    EXPECT_EQ(r.exit_code, 2) << value;
    EXPECT_TRUE(contains(r.err, message)) << r.err;
    EXPECT_FALSE(contains(r.err, "not in range")) << r.err;
  }
  const Result gpus = shardsim({"import", "megatron", "--gpu", "h100-sxm", "--gpus", "1e3"});
  EXPECT_EQ(gpus.exit_code, 2);
  EXPECT_TRUE(contains(gpus.err, "--gpus: expected a whole number from 1 to 16777216")) << gpus.err;
}

TEST(cli_usage, HelpExitsZero) {
  const Result r = shardsim({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "memory")) << r.out;  // lists the subcommands
}

// --set values apply in order: a section set after a key inside it would drop the key (found by
// review, 2026-11-27: ZeRO-0 ran), so it is refused; a key set after its section applies inside
// it (the report's plan then has both).
TEST(cli_usage, ASectionSetAfterAKeyInsideItIsRefused) {
  const Result lost =
      shardsim({"memory", kExample, "--set", "parallel.zero=3", "--set", R"(parallel={"tp":4})"});
  EXPECT_EQ(lost.exit_code, 2);
  EXPECT_TRUE(contains(lost.err, "give --set parallel first")) << lost.err;
  const Result kept = shardsim(
      {"memory", kExample, "--json", "--set", R"(parallel={"tp":4})", "--set", "parallel.zero=3"});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  const json scenario = parse_report(kept)["scenario"];
  EXPECT_EQ(scenario["parallel"]["tp"], 4);
  EXPECT_EQ(scenario["parallel"]["zero"], 3);
  // The same section given twice as an object would drop the first one's keys (found by review,
  // 2026-11-29: tp 1 ran); one key given twice is a plain later-wins (tp 2 below).
  const Result twice = shardsim(
      {"memory", kExample, "--set", R"(parallel={"tp":4})", "--set", R"(parallel={"zero":1})"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_TRUE(contains(twice.err,
                       "replaces the whole parallel that an earlier --set "
                       "parallel={...} gave"))
      << twice.err;
  // A reset (null) or a name after an object is on purpose, not a loss (review, 2026-11-29).
  const Result reset =
      shardsim({"memory", kExample, "--set", R"(parallel={"tp":4})", "--set", "parallel=null"});
  EXPECT_EQ(reset.exit_code, 0) << reset.err;
  // What came before a reset is not lost by what follows it (review, 2026-11-29: both refused).
  for (const std::string& first :
       {std::string(R"(parallel={"tp":4})"), std::string("parallel.tp=4")}) {
    const Result after_reset = shardsim({"memory", kExample, "--set", first, "--set",
                                         "parallel=null", "--set", R"(parallel={"zero":1})"});
    EXPECT_EQ(after_reset.exit_code, 0) << first << ": " << after_reset.err;
  }
  const Result key_twice =
      shardsim({"memory", kExample, "--json", "--set", "parallel.tp=4", "--set", "parallel.tp=2"});
  ASSERT_EQ(key_twice.exit_code, 0) << key_twice.err;
  EXPECT_EQ(parse_report(key_twice)["scenario"]["parallel"]["tp"], 2);
}

// A file where only a preset name goes is said to be one; a missing file where files are
// accepted is said to be missing (found by review, 2026-11-27: both were "unknown preset", and
// then the first wording also fired for fields that take no file).
// A number or an array where a preset name, a file or an object goes names all three forms
// (found by review, 2026-11-29: `--set cluster.gpu=8` said only "expected an object").
TEST(cli_usage, APresetFieldOfAnotherTypeNamesItsThreeForms) {
  for (const auto& [set, pointer] :
       {std::pair<std::string, std::string>{"cluster.gpu=8", "/cluster/gpu"},
        {"cluster.network=[1]", "/cluster/network"}}) {
    const Result r = shardsim({"memory", kExample, "--set", set});
    EXPECT_EQ(r.exit_code, 2) << set;
    EXPECT_TRUE(has_error_line(r.err, pointer,
                               "expected a preset name, a JSON file path or an inline object"))
        << r.err;
  }
}

TEST(cli_usage, FilesWherePresetsGoAreNamedAsSuch) {
  const Result framework =
      shardsim({"memory", kExample, "--set", "framework=/tmp/some/cuda-graphs.json"});
  EXPECT_EQ(framework.exit_code, 2);
  EXPECT_TRUE(has_error_line(framework.err, "/framework",
                             "this takes the name of a frameworks preset, not a file"))
      << framework.err;
  const Result network =
      shardsim({"collective", "--gpu", "h100-sxm", "--op", "all_reduce", "--bytes", "1e6",
                "--ranks", "8", "--network", "/nonexistent/net.json"});
  EXPECT_EQ(network.exit_code, 2);
  EXPECT_TRUE(contains(network.err, "cannot open \"/nonexistent/net.json\": no such file"))
      << network.err;
}

TEST(cli_usage, DeepSpeedEstimatorNeedsZeroTwoOrThree) {
  // The example uses ZeRO-1; DeepSpeed's closed-form estimator covers stages 2 and 3 only.
  const Result r = shardsim({"memory", kExample, "--estimator", "deepspeed"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has_error_line(r.err, "/parallel/zero", "ZeRO stages 2 and 3")) << r.err;
  const Result ok =
      shardsim({"memory", kExample, "--estimator", "deepspeed", "--set", "parallel.zero=3"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  // --html describes shardsim's own report: refused, not silently left unwritten (found by
  // review, 2026-11-27).
  const fs::path html = scratch_dir() / "deepspeed.html";
  fs::remove(html);
  const Result page = shardsim({"memory", kExample, "--estimator", "deepspeed", "--set",
                                "parallel.zero=3", "--html", html.string()});
  EXPECT_EQ(page.exit_code, 2);
  EXPECT_TRUE(contains(page.err, "--html apply to shardsim's own memory report")) << page.err;
  EXPECT_FALSE(fs::exists(html));
  // The example runs TP 2, which DeepSpeed's pure data-parallel formula does not reflect: the
  // text's note is in the JSON's warnings too (the JSON had no caveat until 2026-11-29).
  const Result j = shardsim(
      {"memory", kExample, "--estimator", "deepspeed", "--set", "parallel.zero=3", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json warnings = json::parse(j.out)["warnings"];
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(contains(warnings[0].get<std::string>(),
                       "tp 2, pp 1, cp 1 and ep 1 are not "
                       "reflected"))
      << warnings[0];
  EXPECT_TRUE(ok.out.starts_with("note: DeepSpeed's formula assumes pure data parallelism"))
      << ok.out;
  const Result pure = shardsim({"memory", kExample, "--estimator", "deepspeed", "--set",
                                "parallel.zero=3", "--set", "parallel.tp=1", "--json"});
  ASSERT_EQ(pure.exit_code, 0) << pure.err;
  EXPECT_TRUE(json::parse(pure.out)["warnings"].empty());
}

}  // namespace
