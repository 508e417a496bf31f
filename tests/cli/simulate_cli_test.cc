// End-to-end tests of `shardsim simulate`, and of plans that cannot run (reported as results by
// both `memory` and `simulate`). Helpers: cli_runner.h.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "cli_runner.h"

namespace {

using namespace cli_test;

// ---- shardsim simulate ---------------------------------------------------------------------

TEST(cli_simulate, JsonCarriesTimeBreakdownAndThroughput) {
  for (const char* mode : {"des", "analytic"}) {
    const Result r = shardsim({"simulate", kExample, "--json", "--mode", mode});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json j = parse_report(r);
    const double step = j["time"]["step_seconds"].get<double>();
    EXPECT_GT(step, 0);
    EXPECT_EQ(j["time"]["mode"], mode);
    // DESIGN.md: the exposed seconds of every category sum to the step.
    double sum = 0;
    for (const char* k : {"compute", "recompute", "tp_comm", "cp_comm", "ep_comm", "dp_comm",
                          "pp_comm", "bubble", "optimizer", "offload", "host_dispatch"}) {
      ASSERT_TRUE(j["time"]["breakdown"].contains(k)) << k;
      sum += j["time"]["breakdown"][k].get<double>();
    }
    EXPECT_NEAR(sum, step, 1e-9 * step);
    for (const char* k : {"tokens_per_second", "model_tflops_per_gpu", "hardware_tflops_per_gpu",
                          "mfu", "hfu", "flop_convention"})
      EXPECT_TRUE(j["throughput"].contains(k)) << k;
    // tokens/s = global batch x sequence / step (the example: 64 x 8192).
    EXPECT_NEAR(j["throughput"]["tokens_per_second"].get<double>(), 64.0 * 8192 / step,
                1e-6 * 64 * 8192 / step);
    EXPECT_TRUE(j.contains("memory"));  // simulate reports carry every section
    EXPECT_FALSE(has_nan_or_inf(r.out));
  }
}

// ZB-H2's greedy rule under ZeRO-3 (des/step_program.cc): a deferred weight pass taken while
// forwards or backwards remain ends when its reduce-scatters have drained. Ended at its last
// compute, a short idle gap started several, and their reduce-scatters held the next item's
// gathers on the one data-parallel stream, so ZB-H2 came out slower than ZB-H1 (found by review,
// 2026-11-28: on 41 of 341 random ZeRO-3 plans; on these two, DES ZB-H2 0.818 s and 2.502 s
// against ZB-H1's 0.773 s and 2.338 s). The greedy schedule may not lose to the fixed one here:
// its weight passes fill gaps the fixed program leaves idle.
TEST(cli_simulate, ZbH2UnderZero3DoesNotFloodTheDataParallelStream) {
  const std::vector<std::vector<std::string>> plans = {
      {"mixtral-8x7b-16xh100", "--set", "parallel.pp=5", "--set", "parallel.tp=8", "--set",
       "cluster.nodes=10", "--set", "training.global_batch=14", "--set", "parallel.ep=1"},
      {"mcore-177b-2304xh100", "--set", "parallel.dp=4", "--set", "training.global_batch=28",
       "--set", "model.layers=49"}};
  for (const auto& plan : plans) {
    double step[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      std::vector<std::string> cmd = {"simulate"};
      cmd.insert(cmd.end(), plan.begin(), plan.end());
      for (const std::string& s :
           {std::string("parallel.zero=3"),
            std::string("parallel.schedule=") + (k == 0 ? "\"zb-h2\"" : "\"zb-h1\"")}) {
        cmd.push_back("--set");
        cmd.push_back(s);
      }
      cmd.push_back("--json");
      const Result r = shardsim(cmd);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      step[k] = parse_report(r)["time"]["step_seconds"].get<double>();
    }
    EXPECT_LT(step[0], step[1]) << plan[0];
    // Before the fix ZB-H2 took 0.818 s and 2.502 s here (ZB-H1: 0.773 s and 2.338 s).
    EXPECT_LT(step[0], plan[0] == "mcore-177b-2304xh100" ? 2.40 : 0.76) << plan[0];
  }
}

// Found by review: at sequence 262,144 on A100 with full recomputation HFU came out 108 %, the
// causal flash attention's unmasked FLOPs counted as executed. Every op's executed FLOPs take at
// least FLOPs / peak seconds and the step is at least their sum, so HFU <= 1; MFU, by Megatron's
// unmasked count, exceeds HFU when attention dominates.
TEST(cli_simulate, HfuCountsExecutedWorkAndStaysBelowOne) {
  const Result r = shardsim({"simulate", kExample, "--json", "--set", "cluster.gpu=a100-sxm-80gb",
                             "--set", "training.seq_len=262144", "--set", "training.global_batch=8",
                             "--set", "parallel.tp=8", "--set", "training.recompute=full"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json t = parse_report(r)["throughput"];
  EXPECT_LT(t["hfu"].get<double>(), 1.0);
  EXPECT_GT(t["mfu"].get<double>(), t["hfu"].get<double>());
}

TEST(cli_simulate, ExplainListsEachEffectAgainstTheStepWithItOff) {
  const Result r = shardsim({"simulate", kExample, "--json", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = parse_report(r);
  const double step = j["time"]["step_seconds"].get<double>();
  const json& effects = j["explain"]["effects"];
  ASSERT_EQ(effects.size(), 8u);  // scenario.h EffectSwitches
  for (const auto& e : effects) {
    ASSERT_TRUE(e["enabled"].get<bool>()) << e["name"];  // all on by default
    // evaluate/explain.h: seconds = the step minus the step with this effect off.
    EXPECT_DOUBLE_EQ(e["seconds"].get<double>(), step - e["step_seconds_without"].get<double>());
    // ... and "off" is exactly what --set effects.NAME=false gives.
    const std::string name = e["name"].get<std::string>();
    const Result off =
        shardsim({"simulate", kExample, "--json", "--set", "effects." + name + "=false"});
    ASSERT_EQ(off.exit_code, 0) << off.err;
    EXPECT_DOUBLE_EQ(parse_report(off)["time"]["step_seconds"].get<double>(),
                     e["step_seconds_without"].get<double>())
        << name;
  }
  EXPECT_EQ(j["explain"]["framework"]["name"], "megatron-eager");  // the default framework
}

// --ops: the op table in JSON and text, beside the usual report. Every row has finite,
// non-negative numbers; the GEMMs do floating-point work and the norms none (ops.h).
TEST(cli_simulate, OpsListsEachOpPerPass) {
  const Result r = shardsim({"simulate", kExample, "--json", "--ops"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(has_nan_or_inf(r.out));
  const json j = parse_report(r);
  ASSERT_TRUE(j.contains("time"));
  const json& rows = j["ops"]["rows"];
  ASSERT_FALSE(rows.empty());
  int gemms = 0;
  for (const auto& row : rows)
    for (const char* pass : {"forward", "backward_input", "backward_weight"}) {
      EXPECT_GE(row[pass]["seconds"].get<double>(), 0) << row;
      if (row["kind"] == "gemm" && std::string(pass) == "forward") {
        EXPECT_GT(row[pass]["flops"].get<double>(), 0) << row;
        ++gemms;
      }
      if (row["kind"] == "norm") {
        EXPECT_EQ(row[pass]["flops"].get<double>(), 0) << row;
      }
    }
  EXPECT_GE(gemms, 4);  // QKV, attention output, the MLP's, the logits
  const Result text = shardsim({"simulate", kExample, "--ops"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Ops (one micro-batch on one TP rank"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("= dense block:"), std::string::npos) << text.out;
}

TEST(cli_simulate, BadFrameworkInputExitsTwoNamingTheField) {
  const Result unknown = shardsim({"simulate", kExample, "--set", "framework=pytorch-eagre"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("/framework"), std::string::npos) << unknown.err;
  const Result negative = shardsim({"simulate", kExample, "--set", "framework.op_dispatch_s=-1"});
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_NE(negative.err.find("/framework/op_dispatch_s"), std::string::npos) << negative.err;
  const Result fraction =
      shardsim({"simulate", kExample, "--set", "framework.host_sync_fraction=1.5"});
  EXPECT_EQ(fraction.exit_code, 2);
  EXPECT_NE(fraction.err.find("/framework/host_sync_fraction"), std::string::npos) << fraction.err;
  const Result effect = shardsim({"simulate", kExample, "--set", "effects.gemm_shap=false"});
  EXPECT_EQ(effect.exit_code, 2);
  EXPECT_NE(effect.err.find("/effects"), std::string::npos) << effect.err;
}

// --set framework.KEY=V on the default preset changes that value of megatron-eager and keeps the
// others (an empty object with one key would have zeroed them), and says the preset was modified.
TEST(cli_simulate, SettingOneFrameworkValueKeepsThePresetsOthers) {
  const Result base = shardsim({"simulate", kExample, "--explain", "--json"});
  const Result set = shardsim(
      {"simulate", kExample, "--explain", "--json", "--set", "framework.host_sync_fraction=0.5"});
  ASSERT_EQ(base.exit_code, 0) << base.err;
  ASSERT_EQ(set.exit_code, 0) << set.err;
  const auto f0 = nlohmann::json::parse(base.out)["explain"]["framework"];
  const auto f1 = nlohmann::json::parse(set.out)["explain"]["framework"];
  EXPECT_EQ(f0["name"], "megatron-eager");
  EXPECT_EQ(f1["name"], "megatron-eager (modified by --set)");
  EXPECT_EQ(f1["fitted"], false);
  EXPECT_EQ(f1["host_sync_fraction"], 0.5);
  for (const char* key : {"op_dispatch_s", "collective_dispatch_s", "step_overhead_s"}) {
    EXPECT_GT(f0[key].get<double>(), 0) << key;
    EXPECT_EQ(f1[key], f0[key]) << key;
  }
}

TEST(cli_simulate, IsDeterministic) {
  const Result a = shardsim({"simulate", "gpt3-175b-1536xa100", "--json"});
  const Result b = shardsim({"simulate", "gpt3-175b-1536xa100", "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
}

TEST(cli_simulate, TraceIsChromeTraceJson) {
  const fs::path trace = scratch_dir() / "trace.json";
  fs::remove(trace);
  const Result r = shardsim({"simulate", "gpt3-175b-1536xa100", "--trace", trace.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json t = json::parse(read_file(trace));
  ASSERT_TRUE(t["traceEvents"].is_array());
  // One process per pipeline stage (16), named by metadata events; slices are complete events.
  // Every slice lies inside the step (trace timestamps are microseconds).
  const double step_us = t["otherData"]["step_seconds"].get<double>() * 1e6;
  int processes = 0, slices = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") ++processes;
    if (e["ph"] == "X") {
      ++slices;
      EXPECT_GE(e["ts"].get<double>(), 0);
      EXPECT_LE(e["ts"].get<double>() + e["dur"].get<double>(), step_us * (1 + 1e-9));
    }
  }
  EXPECT_EQ(processes, 16);
  EXPECT_GT(slices, 16 * 128 * 2);  // at least every forward and backward item of every stage
}

// Found by review (2026-11-27): for a plan that cannot be laid out nothing was written and
// nothing said, so a trace of an earlier run looked current. gpt3-175b-1536xa100 runs the
// interleaved schedule over 16 stages with dp 12 and micro-batch 1: a global batch of 1,560
// gives m = 1560 / 12 = 130 micro-batches, not a multiple of 16, so no plan is built (a result,
// exit 0, as README "Exit codes" says).
TEST(cli_simulate, ATraceIsWrittenEvenWhenThePlanCannotBeLaidOut) {
  const fs::path trace = scratch_dir() / "unbuilt_trace.json";
  std::ofstream(trace) << "an earlier run's trace";
  const Result r = shardsim({"simulate", "gpt3-175b-1536xa100", "--set",
                             "training.global_batch=1560", "--trace", trace.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json t = json::parse(read_file(trace));
  EXPECT_TRUE(t["traceEvents"].empty());
  EXPECT_TRUE(contains(t["otherData"]["no_timeline"].get<std::string>(), "cannot be laid out"));
  EXPECT_TRUE(contains(r.err, "warning: --trace")) << r.err;
}

TEST(cli_simulate, TraceNeedsTheEventModel) {
  const Result r = shardsim(
      {"simulate", kExample, "--mode", "analytic", "--trace", (scratch_dir() / "x.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--trace needs --mode des")) << r.err;
}

TEST(cli_simulate, HugeInputIsRefusedNotHung) {
  // 1,000 GPUs / pp 100 = dp 10; m = 100,000 / 10 = 10,000 micro-batches; 100 stages x 10,000 x
  // 3 passes = 3e6 work items > the event limit (3e5): refused with a pointer to the analytic
  // model, which answers.
  const std::vector<std::string> sets = {
      "--set", "model.layers=1000", "--set", "parallel.pp=100",
      "--set", "parallel.tp=1",     "--set", "parallel.sp=false",
      "--set", "cluster.nodes=125", "--set", "training.global_batch=100000"};
  std::vector<std::string> des = {"simulate", kExample};
  des.insert(des.end(), sets.begin(), sets.end());
  const Result r = shardsim(des);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--mode analytic")) << r.err;
  des.insert(des.end(), {"--mode", "analytic"});
  EXPECT_EQ(shardsim(des).exit_code, 0);
}

TEST(cli_simulate, NotFittingIsReportedAsInfeasible) {
  // Llama 3 70B with plain DDP on 8 GPUs cannot hold its 16 B/param model states.
  const Result r = shardsim({"simulate", kExample, "--json", "--set", "model.preset=llama3-70b",
                             "--set", "parallel.zero=0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = parse_report(r);
  EXPECT_FALSE(j["feasibility"]["feasible"].get<bool>());
  EXPECT_EQ(j["feasibility"]["reasons"][0]["code"], "memory");
}

// ---- plans that cannot run: results with reasons, not errors ---------------------------------

TEST(cli_infeasible, PlanLevelReasonsAreResults) {
  // tests/data/infeasible: each file is valid input describing a plan that cannot run.
  struct Case {
    const char* file;
    const char* code;
    const char* fragment;
  };
  const Case cases[] = {
      // mixtral-8x7b, tp 8 on 8 GPUs: dp*cp = 1 rank can hold experts, ep = 2 needs two.
      {"ep_group_too_large.json", "ep_group", "(dp*cp = 1)"},
      // pp 4 on 8 GPUs -> dp 2; m = 6 / 2 = 3 micro-batches, not a multiple of pp = 4.
      {"interleaved_too_few_microbatches.json", "interleaved_microbatches", "= 3 to be a multiple"},
  };
  for (const Case& c : cases) {
    const std::string path = std::string(SHARDSIM_TEST_DATA_DIR) + "/infeasible/" + c.file;
    for (const char* command : {"memory", "simulate"}) {
      const Result r = shardsim({command, path, "--json"});
      ASSERT_EQ(r.exit_code, 0) << c.file << " " << command << ": " << r.err;
      const json j = parse_report(r);
      EXPECT_FALSE(j["feasibility"]["feasible"].get<bool>()) << c.file;
      EXPECT_EQ(j["feasibility"]["reasons"][0]["code"], c.code) << c.file;
      EXPECT_TRUE(
          contains(j["feasibility"]["reasons"][0]["message"].get<std::string>(), c.fragment))
          << j.dump();
      const Result text = shardsim({command, path});
      EXPECT_TRUE(contains(text.out, "feasible  no")) << text.out;
    }
  }
}

TEST(cli_infeasible, ZeroThreePrefetchThatCannotFit) {
  // Llama 3 405B with ZeRO-3 over 512 H100s: sharded states 16 B x 405.9e9 / 512 = 12.7 GB fit,
  // but a 3e10-element prefetch bucket (60 GB in bf16) beside the largest gathered unit and its
  // gradient buffer (~13 GB) and the states exceeds 80 GiB whatever the activations.
  const Result r = shardsim(
      {"memory", kExample, "--json", "--set", "model.preset=llama3-405b", "--set", "parallel.tp=1",
       "--set", "parallel.sp=false", "--set", "parallel.zero=3", "--set", "cluster.nodes=64",
       "--set", "training.global_batch=512", "--set", "overheads.zero3_prefetch_elements=3e10"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = parse_report(r);
  bool prefetch = false;
  for (const auto& reason : j["feasibility"]["reasons"])
    prefetch |= reason["code"] == "zero3_prefetch";
  EXPECT_TRUE(prefetch) << j["feasibility"].dump();
}

}  // namespace
