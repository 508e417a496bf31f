// Issue 11's defects in reading input, each with the input that showed it: deep nesting (a
// recursive copy and dump crashed with SIGSEGV at 100,000-200,000 levels), 1e400 (exit 3 as an
// "internal failure"), a 50 MB scenario (2.5 s before it was refused), duplicate keys (silently
// last-wins). Each must now be exit 2 with a message naming the field or file, quickly: the
// tests bound nothing in time (timing belongs in benchmarks), but each input is refused before
// it is parsed (size) or at the first level past the limit (depth), which is what made it slow.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli_runner.h"

namespace {

using namespace cli_test;

fs::path write(const std::string& name, const std::string& text) {
  const fs::path p = scratch_dir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

// {"model": [[[...]]]} with `depth` brackets (the issue's crash: 100,000).
std::string deep_scenario(int depth) {
  return "{\"model\": " + std::string(std::size_t(depth), '[') +
         std::string(std::size_t(depth), ']') + "}";
}

TEST(cli_limits, DeeplyNestedScenarioExitsTwo) {
  const fs::path p = write("deep.json", deep_scenario(100000));
  const Result r = shardsim({"memory", p.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // The limit is 64 levels (core/json_reader.h kMaxJsonDepth); the pointer is where it was hit:
  // /model and then 63 array elements (index 0 each).
  EXPECT_TRUE(contains(r.err, "nested more than 64 levels deep")) << r.err;
  EXPECT_TRUE(contains(r.err, "error: /model/0/0/")) << r.err;
}

TEST(cli_limits, NestingUpToTheLimitIsOnlyATypeError) {
  // 63 brackets under the root object: 64 levels, allowed; then "model" has the wrong type.
  const fs::path p = write("deep63.json", deep_scenario(63));
  const Result r = shardsim({"memory", p.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(contains(r.err, "nested more than")) << r.err;
  EXPECT_TRUE(contains(r.err, "/model")) << r.err;
}

TEST(cli_limits, DeeplyNestedGpuProfileForCollectiveExitsTwo) {
  // The issue's second crash: a 200,000-deep profile given to `collective --gpu`.
  const fs::path p =
      write("deep_gpu.json", "{\"name\": \"x\", \"compute\": " + std::string(200000, '[') + "}");
  const Result r = shardsim(
      {"collective", "--gpu", p.string(), "--op", "all_reduce", "--bytes", "1e6", "--ranks", "8"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "nested more than 64 levels deep")) << r.err;
  EXPECT_TRUE(contains(r.err, p.string())) << r.err;
}

TEST(cli_limits, DeepSetKeyAndValueExitTwo) {
  // 50,000 parts (100 kB: one argument may hold at most 128 KiB on Linux, MAX_ARG_STRLEN).
  std::string key = "model";
  for (int i = 0; i < 50000; ++i) key += ".a";
  Result r = shardsim({"memory", kExample, "--set", key + "=1"});
  EXPECT_EQ(r.exit_code, 2) << r.err.substr(0, 300);
  EXPECT_TRUE(contains(r.err, "has more than 64 parts")) << r.err.substr(0, 300);
  r = shardsim({"memory", kExample, "--set", "model.x=" + std::string(100000, '[')});
  EXPECT_EQ(r.exit_code, 2) << r.err.substr(0, 300);
  EXPECT_TRUE(contains(r.err, "--set model.x: nested more than 64 levels")) << r.err;
}

TEST(cli_limits, NumberOverflowExitsTwoNamingTheField) {
  // 1e400 exceeds a double (max about 1.8e308): nlohmann throws out_of_range 406.
  const fs::path s = write("overflow.json", R"({"model": {"preset": "llama3-8b"},
    "training": {"seq_len": 1e400, "global_batch": 8, "micro_batch": 1},
    "parallel": {"tp": 1}, "cluster": {"gpu": "h100-sxm", "nodes": 1}})");
  Result r = shardsim({"memory", s.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "/training/seq_len", "out of range")) << r.err;
  // The same through --set: it said "got string" (found by review, 2026-11-29).
  r = shardsim({"memory", kExample, "--set", "parallel.tp=1e400"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "/parallel/tp", "a number a double cannot hold")) << r.err;
  // The same in a Hugging Face config: the scenario's hf_config field, the config's key in the
  // message.
  const fs::path hf = write("hf_overflow.json", R"({"model_type": "llama", "hidden_size": 1e400})");
  const fs::path s2 =
      write("hf_overflow_scenario.json", R"({"model": {"hf_config": ")" + hf.string() + R"("},
    "training": {"seq_len": 1024, "global_batch": 8, "micro_batch": 1},
    "parallel": {"tp": 1}, "cluster": {"gpu": "h100-sxm", "nodes": 1}})");
  r = shardsim({"memory", s2.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "/model/hf_config", "/hidden_size")) << r.err;
  // And in a hardware profile.
  const fs::path g = write("gpu_overflow.json", R"({"name": "x", "memory_bytes": 1e400})");
  r = shardsim(
      {"collective", "--gpu", g.string(), "--op", "all_reduce", "--bytes", "1e6", "--ranks", "8"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "/memory_bytes")) << r.err;
}

// One rank moves nothing (found by review, 2026-11-27: time 0 with algbw 0 was reported).
TEST(cli_limits, CollectiveOfOneRankIsBadInput) {
  const Result r = shardsim(
      {"collective", "--gpu", "h100-sxm", "--op", "all_reduce", "--bytes", "1e6", "--ranks", "1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "--ranks", "one rank moves nothing")) << r.err;
}

// An empty --launcher ran without one, silently (found by review, 2026-11-27).
TEST(cli_limits, EmptyLauncherIsBadInput) {
  const Result r = shardsim({"calibrate", "--backend", "cpu", "--quick", "-o",
                             (scratch_dir() / "never_launched.json").string(), "--launcher", " "});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "is empty")) << r.err;
}

TEST(cli_limits, HugeScenarioIsRefusedBeforeParsing) {
  // 50 MB of whitespace inside an otherwise valid scenario: over the 16 MiB limit.
  const fs::path p = scratch_dir() / "huge.json";
  {
    std::ofstream out(p, std::ios::binary);
    out << "{\"model\": {\"preset\": \"llama3-8b\"}";
    const std::string blank(1 << 20, ' ');
    for (int i = 0; i < 50; ++i) out << blank;
    out << "}";
  }
  const Result r = shardsim({"memory", p.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "files over 16777216 bytes (16 MiB) are refused")) << r.err;
  fs::remove(p);
}

TEST(cli_limits, DuplicateKeyExitsTwoNamingIt) {
  const fs::path p = write("dup.json", R"({"model": {"preset": "llama3-8b"},
    "training": {"seq_len": 1024, "global_batch": 8, "micro_batch": 1},
    "parallel": {"tp": 2, "tp": 3}, "cluster": {"gpu": "h100-sxm", "nodes": 1}})");
  const Result r = shardsim({"memory", p.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "/parallel/tp", "key \"tp\" appears twice")) << r.err;
  // In a --set value the pointer is below the key set (found by review, 2026-11-28: "/a").
  const Result set = shardsim({"memory", kExample, "--set", R"(parallel.tp={"a":1,"a":2})"});
  EXPECT_EQ(set.exit_code, 2) << set.err;
  EXPECT_TRUE(has_error_line(set.err, "/parallel/tp/a", "key \"a\" appears twice")) << set.err;
}

TEST(cli_limits, DirectoryAndMissingScenarioExitTwo) {
  Result r = shardsim({"memory", scratch_dir().string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "is a directory")) << r.err;
  r = shardsim({"memory", (scratch_dir() / "absent.json").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(cli_limits, HugeSimulationsAreRefusedNamingTheKnob) {
  // The issue's 49 s run: 1,048,576 layers. The example overlaps its gradient buckets, so the
  // last micro-batch's backward is simulated block by block: about 2 tasks per layer, 2.1e6 in
  // all, over the 1e6 limit (des/step_sim.h kMaxTasks).
  Result r = shardsim({"simulate", kExample, "--set", "model.layers=1048576"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "/model/layers", "--mode analytic")) << r.err;
  // 4,000,000 sequences over dp 4 at micro-batch 1: 1e6 micro-batches, 2 items and about 4 tasks
  // each: over the limit through the batch.
  r = shardsim({"simulate", kExample, "--set", "training.global_batch=4000000"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "/training/global_batch", "--mode analytic")) << r.err;
  // The analytic model answers both.
  r = shardsim({"simulate", kExample, "--set", "model.layers=1048576", "--mode", "analytic"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The issue's 148 s run (global batch 240,000 with 65,536 layers): 60,000 micro-batches whose
  // items are one task each, summed over their layers once: runs (it does not fit in memory).
  r = shardsim({"simulate", kExample, "--set", "model.layers=65536", "--set",
                "training.global_batch=240000", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(parse_report(r)["feasibility"]["feasible"], false);
}

}  // namespace
