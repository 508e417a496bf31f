// import_deepspeed / import_megatron (simulator/scenario/importers.h): each mapped option lands in
// the scenario key the README names, every unmodelled option is a warning, bad input is an
// InputError, and the result loads as a scenario.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "simulator/core/diagnostics.h"
#include "simulator/scenario/importers.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/validate.h"

namespace shardsim {
namespace {

bool warns(const ImportResult& r, const std::string& part) {
  return std::any_of(r.warnings.begin(), r.warnings.end(),
                     [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

const nlohmann::json kDeepSpeed = nlohmann::json::parse(R"({
  "train_batch_size": 512, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2,
  "bf16": {"enabled": true},
  "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": true},
    "offload_param": {"device": "nvme"}, "overlap_comm": true, "contiguous_gradients": true,
    "reduce_bucket_size": 2e8, "stage3_prefetch_bucket_size": 3e7},
  "activation_checkpointing": {"partition_activations": true},
  "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
  "gradient_clipping": 1.0})");

ImportTarget ds_target() {
  ImportTarget t;
  t.model = "llama2-13b";
  t.gpu = "a100-sxm-80gb";
  t.gpus = 64;
  t.seq_len = 4096;
  return t;
}

// A control character in the config's file name is written out in the scenario's name and
// description ("\\u001b" as six characters), so the scenario loads; the user's own `name` with
// one is refused (found by review, 2026-11-29: the import was exit 2 blaming /name and
// /description, keys the user never wrote).
TEST(import_deepspeed, AControlCharacterInTheFileNameIsWrittenOut) {
  const ImportResult r = import_deepspeed(kDeepSpeed, ds_target(), "d\x1bs.json");
  EXPECT_EQ(r.scenario["name"], "d\\u001bs");
  EXPECT_EQ(r.scenario["description"], "imported from the DeepSpeed config d\\u001bs.json");
  EXPECT_NO_THROW((void)scenario_from_json(r.scenario, ""));
}

TEST(import_deepspeed, MapsEveryModelledKeyAndWarnsOnTheRest) {
  const ImportResult r = import_deepspeed(kDeepSpeed, ds_target(), "ds.json");
  const nlohmann::json& s = r.scenario;
  // train_batch_size 512 = micro-batch 4 x accumulation 2 x 64 GPUs (all data-parallel).
  EXPECT_EQ(s["training"]["global_batch"], 512);
  EXPECT_EQ(s["training"]["micro_batch"], 4);
  EXPECT_EQ(s["training"]["precision"], "bf16");
  EXPECT_EQ(s["training"]["recompute"], "full");
  EXPECT_EQ(s["training"]["optimizer"], "adamw");
  EXPECT_EQ(s["training"]["seq_len"], 4096);
  EXPECT_EQ(s["parallel"]["zero"], 3);
  EXPECT_EQ(s["parallel"]["dp"], 64);
  EXPECT_EQ(s["parallel"]["offload_optimizer"], true);
  EXPECT_EQ(s["parallel"]["offload_params"], true);
  EXPECT_EQ(s["parallel"]["overlap_grad_reduce"], true);
  EXPECT_EQ(s["overheads"]["zero_bucket_elements"], 2e8);
  EXPECT_EQ(s["overheads"]["zero3_prefetch_elements"], 3e7);
  EXPECT_EQ(s["model"]["preset"], "llama2-13b");
  for (const char* w : {"contiguous_gradients", "pin_memory", "nvme", "partition_activations",
                        "gradient_clipping", "optimizer.params", "activation_checkpointing: read"})
    EXPECT_TRUE(warns(r, w)) << w;
  const Scenario loaded = scenario_from_json(s, "");
  EXPECT_EQ(loaded.cluster.gpus(), 64);
}

TEST(import_deepspeed, BatchFromMicroTimesAccumulationAndBadInput) {
  nlohmann::json c = {{"train_micro_batch_size_per_gpu", 2}, {"gradient_accumulation_steps", 8}};
  EXPECT_EQ(import_deepspeed(c, ds_target(), "x").scenario["training"]["global_batch"],
            2 * 8 * 64);  // micro x accumulation x data-parallel size
  EXPECT_EQ(import_deepspeed(c, ds_target(), "x").scenario["training"]["precision"], "fp32");
  c["train_batch_size"] = 1000;  // != 2 x 8 x 64 = 1024
  EXPECT_THROW((void)import_deepspeed(c, ds_target(), "x"), InputError);
  const nlohmann::json autos = {
      {"train_batch_size", 256},
      {"train_micro_batch_size_per_gpu", "auto"},
      {"zero_optimization", {{"stage", 2}, {"reduce_bucket_size", "auto"}}}};
  const ImportResult a = import_deepspeed(autos, ds_target(), "x");
  EXPECT_TRUE(warns(a, "\"auto\""));
  EXPECT_TRUE(warns(a, "reduce_bucket_size"));
  EXPECT_THROW((void)import_deepspeed({{"train_batch_size", "auto"}}, ds_target(), "x"),
               InputError);  // no batch at all
  EXPECT_THROW(
      (void)import_deepspeed(
          {{"train_batch_size", 64}, {"fp16", {{"enabled", true}}}, {"bf16", {{"enabled", true}}}},
          ds_target(), "x"),
      InputError);
  EXPECT_THROW(
      (void)import_deepspeed({{"train_batch_size", 64}, {"zero_optimization", {{"stage", 4}}}},
                             ds_target(), "x"),
      InputError);
  // No GPU count: named as such, before the batch that is derived over it.
  ImportTarget no_gpus = ds_target();
  no_gpus.gpus = 0;
  try {
    (void)import_deepspeed({{"train_batch_size", 64}, {"gradient_accumulation_steps", 2}}, no_gpus,
                           "x");
    ADD_FAILURE() << "imported without a GPU count";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--gpus is required"), std::string::npos) << e.what();
  }
  ImportTarget no_model = ds_target();
  no_model.model.clear();
  EXPECT_THROW((void)import_deepspeed({{"train_batch_size", 64}}, no_model, "x"), InputError);
}

// What DeepSpeed derives when a batch key is missing (runtime/config.py
// _set_batch_related_parameters), on ds_target()'s 64 GPUs (found by review: the micro-batch was
// dropped and a lone micro-batch refused).
TEST(import_deepspeed, MissingBatchKeysAreDerivedAsDeepSpeedDoes) {
  auto batches = [](nlohmann::json c) {
    const nlohmann::json tr = import_deepspeed(c, ds_target(), "x").scenario["training"];
    return std::pair<int, int>{tr["micro_batch"].get<int>(), tr["global_batch"].get<int>()};
  };
  // Batch and accumulation: micro-batch 512 / 64 GPUs / 4 = 2.
  EXPECT_EQ(batches({{"train_batch_size", 512}, {"gradient_accumulation_steps", 4}}),
            std::make_pair(2, 512));
  // Batch alone: accumulation 1, micro-batch 512 / 64 = 8.
  EXPECT_EQ(batches({{"train_batch_size", 512}}), std::make_pair(8, 512));
  // Batch and micro-batch: accumulation 512 / 4 / 64 = 2 (not stored: the scenario derives it).
  EXPECT_EQ(batches({{"train_batch_size", 512}, {"train_micro_batch_size_per_gpu", 4}}),
            std::make_pair(4, 512));
  // Micro-batch alone: accumulation 1, batch 3 x 64 = 192.
  EXPECT_EQ(batches({{"train_micro_batch_size_per_gpu", 3}}), std::make_pair(3, 192));
  // An "auto" micro-batch is derived the same way: 512 / 64 = 8.
  EXPECT_EQ(batches({{"train_batch_size", 512}, {"train_micro_batch_size_per_gpu", "auto"}}),
            std::make_pair(8, 512));
  // 100 over 64 GPUs, and 512 over micro-batch 3 x 64 GPUs, cannot be split.
  EXPECT_THROW((void)batches({{"train_batch_size", 100}}), InputError);
  EXPECT_THROW((void)batches({{"train_batch_size", 512}, {"train_micro_batch_size_per_gpu", 3}}),
               InputError);
  EXPECT_THROW((void)batches({{"gradient_accumulation_steps", 4}}), InputError);
}

// DeepSpeed keeps gradients in the model's dtype unless data_types.grad_accum_dtype names
// another (deepspeed/runtime/engine.py get_data_types; dtype names from DtypeEnum).
TEST(import_deepspeed, GradientAccumulationDtype) {
  auto grads = [](nlohmann::json data_types) {
    const nlohmann::json c = {
        {"train_batch_size", 64}, {"bf16", {{"enabled", true}}}, {"data_types", data_types}};
    const ImportResult r = import_deepspeed(c, ds_target(), "x");
    const nlohmann::json& tr = r.scenario["training"];
    return tr.contains("grad_dtype") ? tr["grad_dtype"].get<std::string>() : "same";
  };
  EXPECT_EQ(grads(nlohmann::json::object()), "same");  // the default: bf16 gradients
  EXPECT_EQ(grads({{"grad_accum_dtype", "fp32"}}), "fp32");
  EXPECT_EQ(grads({{"grad_accum_dtype", "torch.float32"}}), "fp32");
  EXPECT_EQ(grads({{"grad_accum_dtype", "bf16"}}), "same");
  EXPECT_EQ(grads({{"grad_accum_dtype", nullptr}}), "same");
  EXPECT_THROW((void)grads({{"grad_accum_dtype", "fp8"}}), InputError);
  EXPECT_THROW((void)grads({{"grad_accum_dtype", "bfloat"}}), InputError);  // not a DtypeEnum name
  // Without ZeRO the bf16 default changed in 2025-08 (DeepSpeed #7515): both cases say so.
  const nlohmann::json zero0 = {{"train_batch_size", 64}, {"bf16", {{"enabled", true}}}};
  EXPECT_TRUE(warns(import_deepspeed(zero0, ds_target(), "x"), "bf16 without ZeRO"));
  nlohmann::json zero0_fp32 = zero0;
  zero0_fp32["data_types"] = {{"grad_accum_dtype", "fp32"}};
  const ImportResult old_bf16 = import_deepspeed(zero0_fp32, ds_target(), "x");
  EXPECT_TRUE(warns(old_bf16, "refuses this mix"));
  // The versions that ran it used the BF16 optimizer, which adds every micro-batch's bf16
  // gradients into fp32 through a copy (bf16_optimizer.py update_hp_grads) and shards the
  // optimizer states as ZeRO-1 does. DeepSpeed picks it for ZeRO stage 1 with fp32 accumulation
  // too, unless the optimizer is offloaded (engine.py _do_optimizer_sanity_check); with bf16
  // gradients, ZeRO-2 or an offloaded optimizer nothing is set.
  const auto bf16_optimizer = [](const ImportResult& r) {
    const nlohmann::json& t = r.scenario["training"];
    return t.value("grad_accumulation_fusion", true) == false &&
           t.value("grad_accumulation_cast", "") == "separate" &&
           r.scenario["parallel"].value("zero", -1) == 1 &&
           r.scenario["parallel"].value("overlap_param_gather", true) == false;
  };
  EXPECT_TRUE(bf16_optimizer(old_bf16));
  EXPECT_TRUE(scenario_from_json(old_bf16.scenario, "").training.grad_accumulation_cast ==
              GradAccumulationCast::kSeparate);
  const ImportResult bf16_grads = import_deepspeed(zero0, ds_target(), "x");
  EXPECT_FALSE(bf16_grads.scenario["training"].contains("grad_accumulation_fusion"));
  EXPECT_EQ(bf16_grads.scenario["parallel"].value("zero", 0), 0);
  nlohmann::json zero1_fp32 = zero0_fp32;
  zero1_fp32["zero_optimization"] = {{"stage", 1}};
  EXPECT_TRUE(bf16_optimizer(import_deepspeed(zero1_fp32, ds_target(), "x")));
  zero1_fp32["zero_optimization"]["offload_optimizer"] = {{"device", "cpu"}};
  EXPECT_FALSE(import_deepspeed(zero1_fp32, ds_target(), "x")
                   .scenario["training"]
                   .contains("grad_accumulation_cast"));
  nlohmann::json zero2_fp32 = zero0_fp32;
  zero2_fp32["zero_optimization"] = {{"stage", 2}};
  EXPECT_FALSE(import_deepspeed(zero2_fp32, ds_target(), "x")
                   .scenario["training"]
                   .contains("grad_accumulation_cast"));
  EXPECT_THROW((void)grads({{"grad_accum_dtype", 32}}), InputError);
  const nlohmann::json c = {{"train_batch_size", 64},
                            {"bf16", {{"enabled", true}}},
                            {"data_types", {{"grad_accum_dtype", "fp16"}}}};
  EXPECT_TRUE(warns(import_deepspeed(c, ds_target(), "x"), "grad_accum_dtype \"fp16\""));
  // The imported scenario loads, with 4-byte gradients.
  const nlohmann::json f = {{"train_batch_size", 64},
                            {"bf16", {{"enabled", true}}},
                            {"data_types", {{"grad_accum_dtype", "fp32"}}}};
  EXPECT_EQ(
      scenario_from_json(import_deepspeed(f, ds_target(), "x").scenario, "").training.grad_dtype,
      GradDtype::kFp32);
}

const std::vector<std::string> kMegatron = {"--num-layers",
                                            "32",
                                            "--hidden-size",
                                            "4096",
                                            "--num-attention-heads",
                                            "32",
                                            "--group-query-attention",
                                            "--num-query-groups",
                                            "8",
                                            "--ffn-hidden-size",
                                            "14336",
                                            "--seq-length",
                                            "8192",
                                            "--tensor-model-parallel-size",
                                            "2",
                                            "--pipeline-model-parallel-size",
                                            "2",
                                            "--num-layers-per-virtual-pipeline-stage",
                                            "4",
                                            "--sequence-parallel",
                                            "--micro-batch-size",
                                            "1",
                                            "--global-batch-size",
                                            "256",
                                            "--use-distributed-optimizer",
                                            "--bf16",
                                            "--swiglu",
                                            "--untie-embeddings-and-output-weights",
                                            "--normalization",
                                            "RMSNorm",
                                            "--position-embedding-type",
                                            "rope",
                                            "--vocab-size",
                                            "128256",
                                            "--use-flash-attn",
                                            "--recompute-granularity",
                                            "selective",
                                            "--lr",
                                            "3e-4",
                                            "--no-masked-softmax-fusion"};

TEST(import_megatron, MapsTheArgumentsAndWarnsOnTheRest) {
  ImportTarget t;
  t.gpu = "h100-sxm";
  t.gpus = 64;
  const ImportResult r = import_megatron(kMegatron, t);
  const nlohmann::json& s = r.scenario;
  EXPECT_EQ(s["model"]["layers"], 32);
  EXPECT_EQ(s["model"]["kv_heads"], 8);
  EXPECT_EQ(s["model"]["ffn_hidden"], 14336);
  EXPECT_EQ(s["model"]["ffn_type"], "swiglu");
  EXPECT_EQ(s["model"]["norm"], "rmsnorm");
  EXPECT_EQ(s["model"]["position"], "rope");
  EXPECT_EQ(s["model"]["tied_embeddings"], false);
  EXPECT_EQ(s["model"]["vocab"], 128256);
  // Selective recomputation saves nothing under flash attention (the scores are never stored): no
  // recomputation, with a warning.
  EXPECT_FALSE(s["training"].contains("recompute"));
  EXPECT_TRUE(warns(r, "--recompute-granularity selective"));
  EXPECT_EQ(s["training"]["flash_attention"], true);
  EXPECT_EQ(s["parallel"]["vpp"], 4);  // 32 layers / (pp 2 x 4 layers per virtual stage)
  EXPECT_EQ(s["parallel"]["schedule"], "interleaved");
  EXPECT_EQ(s["parallel"]["dp"], 16);   // 64 GPUs / (tp 2 x pp 2 x cp 1)
  EXPECT_EQ(s["parallel"]["zero"], 1);  // the distributed optimizer shards optimizer states
  EXPECT_EQ(s["parallel"]["sp"], true);
  EXPECT_EQ(s["training"]["grad_dtype"], "fp32");  // --bf16: Megatron's fp32 main gradients
  EXPECT_TRUE(warns(r, "--lr 3e-4"));
  EXPECT_TRUE(warns(r, "--no-masked-softmax-fusion"));
  EXPECT_EQ(r.warnings.size(), 3u);  // nothing else is dropped
  const Scenario loaded = scenario_from_json(s, "");
  EXPECT_EQ(loaded.strategy.dp, 16);
}

// A tiny GPT's Megatron arguments (8 layers, hidden 512, 8 heads, vocabulary 1000, sequence
// 128), then `more`.
std::vector<std::string> tiny_megatron(std::initializer_list<std::string> more = {}) {
  std::vector<std::string> args = {"--num-layers",          "8",  "--hidden-size", "512",
                                   "--num-attention-heads", "8",  "--vocab-size",  "1000",
                                   "--seq-length",          "128"};
  args.insert(args.end(), more);
  return args;
}

TEST(import_megatron, BadArgumentsAreInputErrors) {
  ImportTarget t;
  t.gpu = "h100-sxm";
  t.gpus = 8;
  EXPECT_THROW((void)import_megatron({"--num-layers", "32", "--hidden-size", "4096"}, t),
               InputError);  // no heads
  EXPECT_THROW(
      (void)import_megatron(
          {"--num-layers", "x32", "--hidden-size", "4096", "--num-attention-heads", "32"}, t),
      InputError);
  std::vector<std::string> no_batch = tiny_megatron();
  EXPECT_THROW((void)import_megatron(no_batch, t), InputError);
  no_batch.insert(no_batch.end(), {"--global-batch-size", "16", "--pipeline-model-parallel-size",
                                   "2", "--num-layers-per-virtual-pipeline-stage", "3"});
  EXPECT_THROW((void)import_megatron(no_batch, t), InputError);  // 8 % (2 x 3) != 0
}

// Megatron defaults --global-batch-size to micro-batch x data-parallel size (arguments.py:
// "if args.global_batch_size is None: args.global_batch_size = args.micro_batch_size *
// args.data_parallel_size"); the import stopped at "--global-batch-size is required" (found by
// README audit, 2026-11-29). 8 GPUs at TP 2: dp 4, micro-batch 2, so 8 sequences.
TEST(import_megatron, TheGlobalBatchDefaultsToMicroBatchTimesDataParallel) {
  ImportTarget t;
  t.gpu = "h100-sxm";
  t.gpus = 8;
  std::vector<std::string> args =
      tiny_megatron({"--micro-batch-size", "2", "--tensor-model-parallel-size", "2"});
  const ImportResult r = import_megatron(args, t);
  EXPECT_EQ(r.scenario["training"]["global_batch"], 8);
  EXPECT_EQ(r.scenario["training"]["micro_batch"], 2);
  args.insert(args.end(), {"--global-batch-size", "32"});  // given, it is kept
  EXPECT_EQ(import_megatron(args, t).scenario["training"]["global_batch"], 32);
  // Without --micro-batch-size, which Megatron requires: read as 1 (the scenario's default), with
  // a warning.
  const ImportResult r2 = import_megatron(tiny_megatron({"--global-batch-size", "16"}), t);
  EXPECT_FALSE(r2.scenario["training"].contains("micro_batch"));
  EXPECT_TRUE(warns(r2, "--micro-batch-size absent")) << r2.warnings.size();
}

// Values outside argparse's choices stop Megatron-LM (arguments.py: --recompute-granularity
// full|selective, --recompute-method uniform|block); they were a "not modelled" warning with exit
// 0 (found by review, 2026-11-27).
TEST(import_megatron, ValuesOutsideMegatronsChoicesAreInputErrors) {
  ImportTarget t;
  t.gpu = "h100-sxm";
  t.gpus = 8;
  const std::vector<std::string> base = {
      "--num-layers", "8",    "--hidden-size", "512", "--num-attention-heads", "8",
      "--vocab-size", "1000", "--seq-length",  "128", "--global-batch-size",   "16"};
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--recompute-granularity", "bogus"},
        std::vector<std::string>{"--recompute-granularity", "full", "--recompute-method", "some"},
        std::vector<std::string>{"--activations-checkpoint-method", "foo"}}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    try {
      (void)import_megatron(args, t);
      ADD_FAILURE() << "accepted " << extra.back();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("Megatron-LM's choices"), std::string::npos) << e.what();
      // the flag the value came from is named (the older flag's value was blamed on the newer)
      EXPECT_NE(std::string(e.what()).find(extra[extra.size() - 2] + " " + extra.back()),
                std::string::npos)
          << e.what();
    }
  }
  std::vector<std::string> full = base;
  full.insert(full.end(), {"--recompute-granularity", "full", "--recompute-method", "uniform"});
  EXPECT_EQ(import_megatron(full, t).scenario["training"]["recompute"], "full");
  // Padding only adds rows: a padded size below the vocabulary (1000 above) is refused.
  std::vector<std::string> shrunk = base;
  shrunk.insert(shrunk.end(), {"--padded-vocab-size", "100"});
  EXPECT_THROW((void)import_megatron(shrunk, t), InputError);
}

// Megatron's defaults when the width arguments are absent (megatron/training/arguments.py):
// ffn = 4 x hidden, or int(4 x hidden x 2/3 / 64) x 64 with --swiglu; --moe-ffn-hidden-size
// defaults to the dense width.
TEST(import_megatron, FfnWidthsFollowMegatronDefaults) {
  ImportTarget t;
  t.gpu = "h100-sxm";
  t.gpus = 8;
  const std::vector<std::string> base = {
      "--num-layers", "8",     "--hidden-size", "4096", "--num-attention-heads", "32",
      "--vocab-size", "32000", "--seq-length",  "2048", "--global-batch-size",   "16"};
  // 4 x 4096 = 16384.
  EXPECT_EQ(import_megatron(base, t).scenario["model"]["ffn_hidden"], 16384);
  std::vector<std::string> swiglu = base;
  swiglu.push_back("--swiglu");
  // int(4 x 4096 x 2/3 / 64) x 64 = int(170.67) x 64 = 10880.
  EXPECT_EQ(import_megatron(swiglu, t).scenario["model"]["ffn_hidden"], 10880);
  std::vector<std::string> moe = swiglu;
  moe.insert(moe.end(), {"--num-experts", "8", "--expert-model-parallel-size", "8"});
  const ImportResult r = import_megatron(moe, t);
  EXPECT_EQ(r.scenario["model"]["moe"]["expert_ffn_hidden"], 10880);
  const Scenario loaded = scenario_from_json(r.scenario, "");  // loads: the width is known
  EXPECT_EQ(loaded.model.moe.expert_ffn_hidden, 10880);
}

// A small Megatron model on 8 H100s (or `t`) plus `extra` arguments.
ImportResult import_small_megatron(const std::vector<std::string>& extra,
                                   ImportTarget t = {"", "h100-sxm", 8}) {
  std::vector<std::string> a = {"--num-layers",          "8",    "--hidden-size",       "1024",
                                "--num-attention-heads", "8",    "--vocab-size",        "32000",
                                "--seq-length",          "2048", "--global-batch-size", "16"};
  a.insert(a.end(), extra.begin(), extra.end());
  return import_megatron(a, t);
}

// The GPU count is checked against the parallel sizes and the node size where the user gave it
// (found by review: the errors named the scenario's default cluster of 8 GPUs and
// cluster.nodes, which import has no option for).
TEST(import_megatron, GpuCountErrorsNameTheImportOptions) {
  ImportTarget t;
  t.gpu = "h100-sxm";
  t.gpus = 64;
  try {
    (void)import_small_megatron({"--tensor-model-parallel-size", "3"}, t);
    ADD_FAILURE() << "64 GPUs over TP 3 imported";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--gpus 64 is not a multiple"), std::string::npos)
        << e.what();
  }
  t.gpus = 12;  // 1.5 H100 nodes of 8
  try {
    (void)import_small_megatron({}, t);
    ADD_FAILURE() << "12 GPUs in nodes of 8 imported";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("give --gpus-per-node"), std::string::npos) << e.what();
  }
  t.gpus_per_node = 4;  // three 4-GPU nodes
  const nlohmann::json c = import_small_megatron({}, t).scenario["cluster"];
  EXPECT_EQ(c["nodes"], 3);
  t.gpus = 4;  // part of one node: no node count to give
  t.gpus_per_node = 0;
  EXPECT_EQ(import_small_megatron({}, t).scenario["parallel"]["dp"], 4);
}

// Megatron's defaults when the flags are absent (arguments.py at f2e5db402c): linear biases
// (--disable-bias-linear stores false into add_bias_linear) and --attention-dropout /
// --hidden-dropout 0.1 (found by review: an import had neither).
TEST(import_megatron, BiasAndDropoutFollowMegatronDefaults) {
  auto model = [](const std::vector<std::string>& extra) {
    return import_small_megatron(extra).scenario["model"];
  };
  EXPECT_EQ(model({})["bias"], true);
  EXPECT_EQ(model({})["dropout"], true);
  EXPECT_EQ(model({"--disable-bias-linear"})["bias"], false);
  EXPECT_EQ(model({"--attention-dropout", "0.0", "--hidden-dropout", "0"})["dropout"], false);
  EXPECT_EQ(model({"--attention-dropout", "0"})["dropout"], true);  // hidden keeps 0.1
  EXPECT_THROW((void)model({"--hidden-dropout", "lots"}), InputError);
  EXPECT_THROW((void)model({"--hidden-dropout", "1.5"}), InputError);
  // A --model preset keeps its own architecture unless a flag says otherwise.
  ImportTarget t{"llama3-8b", "h100-sxm", 8};
  const nlohmann::json preset =
      import_megatron({"--seq-length", "2048", "--global-batch-size", "16"}, t).scenario["model"];
  EXPECT_FALSE(preset.contains("bias"));
  EXPECT_FALSE(preset.contains("dropout"));
}

// Megatron's --window-size LEFT,RIGHT (arguments.py tuple_type: stripped of parentheses, split at
// ',', each part Python's int(); Transformer Engine's window: query i attends keys i - LEFT to
// i + RIGHT, the causal mask cutting at i) is LEFT + 1 keys: 4095,0 is Mistral's 4096; -1 is an
// infinite window (none). --window-attn-skip-freq N makes every N-th layer (1-based) full
// (utils.py is_layer_window_attention: layer_number % N != 0 slides; Python's % reads -4 as 4);
// its list form, one 0/1 per layer, maps where the scenario's two keys can express it and is
// otherwise left out with a warning. Given --window-size, all three keys are written, so a
// --model base's window does not survive Megatron's "-1". (Both flags were "not modelled"
// before 2026-11-29, when windows were not priced.) The tiny model has 8 layers.
TEST(import_megatron, WindowSizeIsLeftPlusOneKeys) {
  const auto model = [](const std::vector<std::string>& extra) {
    return import_small_megatron(extra).scenario["model"];
  };
  const nlohmann::json plain = model({"--window-size", "4095,0"});
  EXPECT_EQ(plain["sliding_window"], 4096);
  EXPECT_EQ(plain["sliding_window_from_layer"], 0);
  EXPECT_EQ(plain["sliding_window_full_every"], 0);
  for (const char* same : {"(127,0)", "(127,0", "127 ,0", "+127,0"})
    EXPECT_EQ(model({"--window-size", same})["sliding_window"], 128) << same;
  EXPECT_EQ(model({"--window-size", "-1,0"})["sliding_window"], 0);
  for (const char* bad : {"4095", "a,0", "4095,0,1", "-2,0", "4095.5,0", "", "4294967296,0"})
    EXPECT_THROW((void)model({std::string("--window-size=") + bad}), InputError) << bad;
  const auto every = [&](const std::string& skip) {
    return model({"--window-size", "4095,0", "--window-attn-skip-freq=" + skip});
  };
  EXPECT_EQ(every("4")["sliding_window_full_every"], 4);
  EXPECT_EQ(every("-4")["sliding_window_full_every"], 4);
  EXPECT_EQ(every("1")["sliding_window"], 0);       // every layer number is a multiple of 1
  EXPECT_EQ(every("100")["sliding_window"], 4096);  // past the 8 layers: every layer slides
  EXPECT_EQ(every("100")["sliding_window_full_every"], 100);        // no layer number a multiple
  EXPECT_EQ(every("[1,1,1,0]*2")["sliding_window_full_every"], 4);  // Megatron's help example
  EXPECT_EQ(every("([0]*2+[1]*6)")["sliding_window_from_layer"], 2);
  EXPECT_EQ(every("4*[1,0]")["sliding_window_full_every"], 2);
  EXPECT_EQ(every("[1,1,1,0,]*2+[1]")["sliding_window_full_every"], 4);  // tail never read
  for (const char* bad : {"0", "", "4.0", "+-4", "[1,0]*3", "[1,0", "[1,x]*4", "[-1]*8", "[1, 0]*4",
                          "[1]*1000000000", "[]*9223372036854775807"})
    EXPECT_THROW((void)every(bad), InputError) << bad;
  // Nesting past 64 parentheses is refused, not recursed into (the parser's depth).
  EXPECT_THROW((void)every(std::string(100000, '(') + "[1]*8" + std::string(100000, ')')),
               InputError);
  EXPECT_EQ(
      every(std::string(60, '(') + "[1,0]*4" + std::string(60, ')'))["sliding_window_full_every"],
      2);
  // Without --window-size Megatron windows nothing, whatever the skip frequency says.
  const ImportResult none = import_small_megatron({"--window-attn-skip-freq", "4"});
  EXPECT_FALSE(none.scenario["model"].contains("sliding_window"));
  EXPECT_TRUE(warns(none, "--window-attn-skip-freq 4: no effect without --window-size"));
  const ImportResult r =
      import_small_megatron({"--window-size", "4095,0", "--window-attn-skip-freq", "[1,0,0,1]*2"});
  EXPECT_EQ(r.scenario["model"]["sliding_window"], 0);
  EXPECT_TRUE(warns(r,
                    "--window-size 4095,0 with --window-attn-skip-freq [1,0,0,1]*2: that order "
                    "of windowed and full layers is not modelled"));
}

// --cp-comm-type (nargs='+': one type or one per layer; Megatron hands it to Transformer Engine
// as given) with --context-parallel-size 2: p2p, all_gather and a2a map onto
// parallel.cp_comm_type; "allgather", the spelling of Megatron's help text, which Transformer
// Engine refuses, is taken as all_gather with a warning; per-layer types that differ are priced
// as the first's, warned; a count other than 1 or --num-layers (8 here), an unknown or empty type
// are errors. a2a+p2p needs --hierarchical-context-parallel-sizes A2A P2P with product cp
// (Megatron's assertion); Transformer Engine runs a level of size 1 as the other alone, and two
// real levels are priced as p2p, warned. Without context parallelism the types are not read
// (Megatron checks them only with cp > 1), but its assertions on the levels hold at any size. The
// values after the option are all read (a word after a single-valued option is still "not an
// option; ignored").
TEST(import_megatron, CpCommTypeMapsOntoTheScenario) {
  const auto with_cp = [](std::vector<std::string> extra, const std::string& cp = "2") {
    extra.insert(extra.end(), {"--context-parallel-size", cp});
    return import_small_megatron(extra);
  };
  const auto type = [&](const std::vector<std::string>& extra) {
    return with_cp(extra).scenario["parallel"]["cp_comm_type"];
  };
  for (const char* same : {"p2p", "all_gather", "a2a"})
    EXPECT_EQ(type({"--cp-comm-type", same}), same);
  const ImportResult spelled = with_cp({"--cp-comm-type", "allgather"});
  EXPECT_EQ(spelled.scenario["parallel"]["cp_comm_type"], "all_gather");
  EXPECT_TRUE(warns(spelled, "--cp-comm-type allgather: Transformer Engine names it all_gather"));
  EXPECT_EQ(type({"--cp-comm-type", "a2a", "a2a", "a2a", "a2a", "a2a", "a2a", "a2a", "a2a"}),
            "a2a");
  const ImportResult mixed =
      with_cp({"--cp-comm-type", "a2a", "p2p", "p2p", "p2p", "p2p", "p2p", "p2p", "p2p", "--bf16"});
  EXPECT_EQ(mixed.scenario["parallel"]["cp_comm_type"], "a2a");
  EXPECT_TRUE(warns(mixed,
                    "different types per layer are not modelled; every layer is priced "
                    "as the first's, a2a"));
  EXPECT_EQ(mixed.scenario["training"]["precision"], "bf16");  // the list ends at the next option
  EXPECT_FALSE(with_cp({}).scenario["parallel"].contains("cp_comm_type"));
  // Without context parallelism the types are not read (Megatron checks the list only then),
  // but Megatron's own assertions hold at any size: a2a+p2p needs the levels, and the levels'
  // product is cp.
  EXPECT_FALSE(import_small_megatron({"--cp-comm-type", "a2a", "p2p"})
                   .scenario["parallel"]
                   .contains("cp_comm_type"));
  EXPECT_THROW((void)import_small_megatron({"--cp-comm-type", "a2a+p2p"}), InputError);
  EXPECT_THROW(
      (void)with_cp({"--cp-comm-type", "p2p", "a2a+p2p", "p2p", "p2p", "p2p", "p2p", "p2p", "p2p"}),
      InputError);
  EXPECT_THROW(
      (void)with_cp({"--cp-comm-type", "p2p", "--hierarchical-context-parallel-sizes", "4", "4"}),
      InputError);
  EXPECT_THROW((void)with_cp({"--hierarchical-context-parallel-sizes", "9999999", "9999999",
                              "9999999", "9999999"}),
               InputError);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--cp-comm-type", "ring"},
        {"--cp-comm-type", "a2a", "a2a"},
        {"--cp-comm-type"},
        {"--cp-comm-type="},
        {"--cp-comm-type", "a2a+p2p"},
        {"--cp-comm-type", "a2a+p2p", "--hierarchical-context-parallel-sizes", "2", "2"},
        {"--cp-comm-type", "a2a+p2p", "--hierarchical-context-parallel-sizes", "x", "1"}})
    EXPECT_THROW((void)with_cp(bad), InputError) << bad.size();
  // The hierarchical levels: a2a over 2 and p2p over 1 is a2a; 1 and 2 is p2p; 2 x 2 of cp 4 is
  // priced as p2p with a warning.
  EXPECT_EQ(type({"--cp-comm-type", "a2a+p2p", "--hierarchical-context-parallel-sizes", "2", "1"}),
            "a2a");
  EXPECT_EQ(type({"--cp-comm-type", "a2a+p2p", "--hierarchical-context-parallel-sizes", "1", "2"}),
            "p2p");
  const ImportResult two_levels = with_cp(
      {"--cp-comm-type", "a2a+p2p", "--hierarchical-context-parallel-sizes", "2", "2"}, "4");
  EXPECT_EQ(two_levels.scenario["parallel"]["cp_comm_type"], "p2p");
  EXPECT_TRUE(warns(two_levels,
                    "--cp-comm-type a2a+p2p (all-to-all inside groups of 2, the ring "
                    "across 2 of them) is not modelled"));
  const ImportResult extra = import_small_megatron({"--seq-length", "2048", "4096"});
  EXPECT_TRUE(warns(extra, "\"4096\": not an option; ignored"));
}

// Megatron's main-gradient dtype (megatron/training/arguments.py, 2024-07 f2e5db402c and today):
// --bf16 sets accumulate_allreduce_grads_in_fp32 (gradients accumulated and reduced in fp32)
// unless --grad-reduce-in-bf16 is given; --accumulate-allreduce-grads-in-fp32 asks for fp32
// with --fp16 too; without it fp16 and fp32 runs keep gradients in the parameters' dtype.
TEST(import_megatron, GradientDtypeFollowsMegatronsRules) {
  auto grads = [](const std::vector<std::string>& extra) {
    const nlohmann::json tr = import_small_megatron(extra).scenario["training"];
    return tr.contains("grad_dtype") ? tr["grad_dtype"].get<std::string>() : "same";
  };
  EXPECT_EQ(grads({"--bf16"}), "fp32");
  EXPECT_EQ(grads({"--bf16", "--grad-reduce-in-bf16"}), "same");
  EXPECT_EQ(grads({"--bf16", "--grad-reduce-in-bf16", "--accumulate-allreduce-grads-in-fp32"}),
            "same");  // newer Megatron: --grad-reduce-in-bf16 wins
  EXPECT_EQ(grads({"--bf16", "--main-grads-dtype", "bf16"}), "same");  // newer Megatron, too
  EXPECT_EQ(grads({"--bf16", "--main-grads-dtype", "fp32"}), "fp32");
  EXPECT_EQ(grads({"--fp16"}), "same");
  EXPECT_EQ(grads({"--fp16", "--accumulate-allreduce-grads-in-fp32"}), "fp32");
  EXPECT_EQ(grads({}), "same");  // fp32 training: fp32 gradients either way
  EXPECT_TRUE(warns(import_small_megatron({"--fp16", "--grad-reduce-in-bf16"}),
                    "--grad-reduce-in-bf16 without --bf16"));
  // The scenario loads and its gradients take 4 B per parameter.
  EXPECT_EQ(scenario_from_json(import_small_megatron({"--bf16"}).scenario, "").training.grad_dtype,
            GradDtype::kFp32);
  // --no-gradient-accumulation-fusion (store_false of gradient_accumulation_fusion, default on):
  // the weight gradients are added into the fp32 main gradients by a kernel of their own. A flag
  // without a value: the argument after it is read as the next option.
  const auto unfused = import_small_megatron({"--bf16", "--no-gradient-accumulation-fusion"});
  EXPECT_EQ(unfused.scenario["training"]["grad_accumulation_fusion"], false);
  EXPECT_FALSE(scenario_from_json(unfused.scenario, "").training.grad_accumulation_fusion);
  EXPECT_FALSE(
      import_small_megatron({"--bf16"}).scenario["training"].contains("grad_accumulation_fusion"));
}

// Attention (Megatron-LM e7b74a4b7e, 2024-04: --transformer-impl defaults to transformer_engine,
// whose --attention-backend auto / flash / fused run FlashAttention or cuDNN fused attention;
// --attention-backend unfused or local, and --transformer-impl local without --use-flash-attn,
// run Megatron's unfused core attention). With none of the three arguments the importer models
// today's default and says so.
TEST(import_megatron, AttentionFollowsTheImplementationAndBackend) {
  auto import = [](const std::vector<std::string>& extra) { return import_small_megatron(extra); };
  auto flash = [](const std::vector<std::string>& extra) {
    return import_small_megatron(extra).scenario["training"]["flash_attention"].get<bool>();
  };
  EXPECT_TRUE(flash({}));
  EXPECT_TRUE(warns(import({}), "modelled as flash attention"));
  EXPECT_FALSE(warns(import({"--attention-backend", "auto"}), "modelled as flash attention"));
  EXPECT_TRUE(flash({"--attention-backend", "fused"}));
  EXPECT_TRUE(flash({"--transformer-impl", "transformer_engine"}));
  EXPECT_FALSE(flash({"--attention-backend", "unfused"}));
  EXPECT_FALSE(flash({"--transformer-impl", "local"}));
  // --use-flash-attn is read by the legacy models only (pretrain_gpt.py at f2e5db402c builds
  // megatron.legacy.model.GPTModel for --use-legacy-models, else a Megatron-Core spec whose local
  // attention is the unfused DotProductAttention).
  EXPECT_FALSE(flash({"--transformer-impl", "local", "--use-flash-attn"}));
  EXPECT_TRUE(warns(import({"--transformer-impl", "local", "--use-flash-attn"}),
                    "read only by the legacy models"));
  EXPECT_TRUE(flash({"--use-legacy-models", "--use-flash-attn"}));
  EXPECT_FALSE(flash({"--use-legacy-models"}));
  EXPECT_FALSE(warns(import({"--use-legacy-models"}), "not modelled"));
  EXPECT_FALSE(flash({"--transformer-impl", "local", "--attention-backend", "local"}));
  // --recompute-activations is selective recomputation (arguments.py): kept with unfused
  // attention, dropped with a warning under flash attention, like --recompute-granularity.
  EXPECT_EQ(import({"--attention-backend", "unfused", "--recompute-activations"})
                .scenario["training"]["recompute"],
            "selective");
  const ImportResult rc = import({"--attention-backend", "flash", "--recompute-activations"});
  EXPECT_FALSE(rc.scenario["training"].contains("recompute"));
  EXPECT_TRUE(warns(rc, "--recompute-activations) with flash attention"));
  // Values outside Megatron-LM's choices stop it, so they are exit 2 here too (found by review,
  // 2026-11-28: "Local" was read as transformer_engine, turning flash attention on).
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--attention-backend", "sdpa"},
        std::vector<std::string>{"--transformer-impl", "Local"},
        std::vector<std::string>{"--normalization", "rmsnorm"},
        std::vector<std::string>{"--position-embedding-type", "Rope"}}) {
    try {
      (void)import(bad);
      ADD_FAILURE() << bad[0] << " " << bad[1] << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(bad[0] + " " + bad[1] + ": expected"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_TRUE(warns(import({"--position-embedding-type", "relative"}), "not modelled"));
  // Megatron-DeepSpeed's names (found by review, 2026-11-28: refused after the check above).
  EXPECT_EQ(import({"--position-embedding-type", "rotary"}).scenario["model"]["position"], "rope");
  EXPECT_EQ(import({"--position-embedding-type", "absolute"}).scenario["model"]["position"],
            "learned");
  EXPECT_TRUE(warns(import({"--position-embedding-type", "alibi"}), "not modelled"));
}

// The flags of an older Megatron-LM, as the scripts of Narayanan et al. 2021
// (examples/sc21/run_table_1.sh @ de7dc40f88) and Megatron-DeepSpeed runs give them:
// - --checkpoint-activations (full, uniform; an error since 2023-04, 3e71ad9c62) and
//   --activations-checkpoint-method uniform|block (2021-08 to 2022-04) are full recomputation;
// - --DDP-impl torch is PyTorch DDP, reducing during the backward pass; local (its default) after
//   it; the flag was removed in 2023-08 (3fb3e95ec6);
// - any of them marks a Megatron of before 2024, whose GPT is the legacy model: unfused attention
//   unless --use-flash-attn.
TEST(import_megatron, OlderMegatronFlags) {
  auto tr = [](const std::vector<std::string>& extra) {
    return import_small_megatron(extra).scenario["training"];
  };
  EXPECT_EQ(tr({"--checkpoint-activations"})["recompute"], "full");
  EXPECT_EQ(tr({"--activations-checkpoint-method", "uniform"})["recompute"], "full");
  EXPECT_FALSE(tr({"--checkpoint-activations"})["flash_attention"].get<bool>());
  EXPECT_TRUE(tr({"--checkpoint-activations", "--use-flash-attn"})["flash_attention"].get<bool>());
  // The newer granularity wins where both are given.
  EXPECT_EQ(tr({"--checkpoint-activations", "--recompute-granularity", "selective"})["recompute"],
            "selective");
  const ImportResult old = import_small_megatron({"--DDP-impl", "torch"});
  EXPECT_TRUE(old.scenario["parallel"]["overlap_grad_reduce"].get<bool>());
  EXPECT_FALSE(old.scenario["training"]["flash_attention"].get<bool>());
  EXPECT_TRUE(warns(old, "--DDP-impl: a flag of Megatron-LM before 2024"));
  EXPECT_FALSE(warns(old, "not modelled"));
  EXPECT_FALSE(warns(old, "modelled as flash attention"));
  EXPECT_FALSE(import_small_megatron({"--DDP-impl", "local"})
                   .scenario["parallel"]["overlap_grad_reduce"]
                   .get<bool>());
  // uniform chunks of one layer are what full recomputation models; block or longer chunks warn.
  EXPECT_FALSE(
      warns(import_small_megatron({"--activations-checkpoint-method", "uniform"}), "not modelled"));
  EXPECT_TRUE(warns(import_small_megatron({"--activations-checkpoint-method", "block",
                                           "--activations-checkpoint-num-layers", "2"}),
                    "--activations-checkpoint-method"));
  EXPECT_TRUE(
      warns(import_small_megatron({"--checkpoint-activations", "--checkpoint-num-layers", "4"}),
            "not modelled; every layer is recomputed"));
  EXPECT_THROW((void)import_small_megatron({"--DDP-impl", "apex"}), InputError);
}

// Found by review (2026-11-27): options that were silently dropped or misread.
// - An option read for its value but given as the last argument, or followed by another option,
//   is argparse's "expected one argument", not the default.
// - --fp16 with --bf16: Megatron asserts not (arguments.py, "assert not args.bf16").
// - --group-query-attention alone: --num-query-groups defaults to 1, so MQA (kv_heads 1).
// - --num-virtual-stages-per-pipeline-rank N (2025-02) is vpp N and the interleaved schedule.
// - --seq-len and --seq-length that disagree.
TEST(import_megatron, ValuesThatWereDroppedOrMisread) {
  EXPECT_THROW((void)import_small_megatron({"--tensor-model-parallel-size"}), InputError);
  EXPECT_THROW((void)import_small_megatron({"--num-layers", "--bf16"}), InputError);
  EXPECT_THROW((void)import_small_megatron({"--bf16", "--fp16"}), InputError);
  EXPECT_EQ(import_small_megatron({"--group-query-attention"}).scenario["model"]["kv_heads"], 1);
  EXPECT_EQ(import_small_megatron({"--group-query-attention", "--num-query-groups", "4"})
                .scenario["model"]["kv_heads"],
            4);
  const ImportResult v = import_small_megatron(
      {"--pipeline-model-parallel-size", "2", "--num-virtual-stages-per-pipeline-rank", "2"});
  EXPECT_EQ(v.scenario["parallel"]["vpp"], 2);
  EXPECT_EQ(v.scenario["parallel"]["schedule"], "interleaved");
  EXPECT_THROW((void)import_small_megatron({"--pipeline-model-parallel-size", "2",
                                            "--num-virtual-stages-per-pipeline-rank", "2",
                                            "--num-layers-per-virtual-pipeline-stage", "2"}),
               InputError);
  ImportTarget t{"", "h100-sxm", 8};
  t.seq_len = 4096;  // the arguments say 2048
  EXPECT_THROW((void)import_small_megatron({}, t), InputError);
  t.seq_len = 2048;
  EXPECT_EQ(import_small_megatron({}, t).scenario["training"]["seq_len"], 2048);
}

// Found by review (2026-11-27): DeepSpeed's precision "enabled": "auto" (Hugging Face Trainer
// configs) became fp32 without a word, a non-boolean was ignored, and an unknown offload device
// meant no offload.
TEST(import_deepspeed, AutoPrecisionAndOffloadDevices) {
  auto with = [](const char* extra) {
    nlohmann::json ds = {{"train_batch_size", 64}};
    ds.update(nlohmann::json::parse(extra));
    return ds;
  };
  const ImportResult a = import_deepspeed(
      with(R"({"fp16":{"enabled":"auto"},"bf16":{"enabled":"auto"}})"), ds_target(), "ds.json");
  EXPECT_FALSE(a.scenario["training"].contains("precision"));  // the scenario default, bf16
  EXPECT_TRUE(warns(a, "enabled is \"auto\""));
  EXPECT_EQ(import_deepspeed(with(R"({"fp16":{"enabled":"auto"},"bf16":{"enabled":true}})"),
                             ds_target(), "ds.json")
                .scenario["training"]["precision"],
            "bf16");
  EXPECT_EQ(import_deepspeed(with("{}"), ds_target(), "ds.json").scenario["training"]["precision"],
            "fp32");
  EXPECT_THROW(
      (void)import_deepspeed(with(R"({"bf16":{"enabled":"true"}})"), ds_target(), "ds.json"),
      InputError);
  EXPECT_THROW(
      (void)import_deepspeed(
          with(R"({"zero_optimization":{"stage":1,"offload_optimizer":{"device":"gpu"}}})"),
          ds_target(), "ds.json"),
      InputError);
  EXPECT_FALSE(
      import_deepspeed(
          with(R"({"zero_optimization":{"stage":1,"offload_optimizer":{"device":"none"}}})"),
          ds_target(), "ds.json")
          .scenario["parallel"]["offload_optimizer"]
          .get<bool>());
  // Only the loss-scaling keys say that loss scaling changes nothing.
  const ImportResult w = import_deepspeed(
      with(R"({"fp16":{"enabled":true,"loss_scale":0,"auto_cast":true}})"), ds_target(), "ds.json");
  EXPECT_TRUE(warns(w, "fp16.loss_scale: not modelled (loss scaling"));
  EXPECT_TRUE(warns(w, "fp16.auto_cast: not modelled"));
  EXPECT_FALSE(warns(w, "fp16.auto_cast: not modelled (loss scaling"));
}

// Found by review (issue 11): parallel sizes whose product wrapped to 0 divided by it (SIGFPE);
// DeepSpeed products overflowed, a 2^32 + 2 stage read as 2, a numeric optimizer type threw
// nlohmann's type_error (exit 3). Each is now InputError.
TEST(import_megatron, HugeParallelSizesAreInputErrors) {
  ImportTarget t;
  t.gpu = "h100-sxm";
  t.gpus = 8;
  std::vector<std::string> args =
      tiny_megatron({"--global-batch-size", "16", "--tensor-model-parallel-size", "4294967296",
                     "--pipeline-model-parallel-size", "4294967296"});
  EXPECT_THROW((void)import_megatron(args, t), InputError);
  args.back() = "2";
  args[args.size() - 3] = "1";
  args.insert(args.end(), {"--num-layers-per-virtual-pipeline-stage", "4294967296"});
  EXPECT_THROW((void)import_megatron(args, t), InputError);
  args.back() = "99999999999999999";  // > 2^53
  EXPECT_THROW((void)import_megatron(args, t), InputError);
}

TEST(import_deepspeed, OverflowsAndWrongTypesAreInputErrors) {
  // 2^62 x 4 x 64 does not fit in 64 bits (it wrapped to 0: "global batch is not given").
  try {
    (void)import_deepspeed({{"train_micro_batch_size_per_gpu", std::int64_t{1} << 62},
                            {"gradient_accumulation_steps", 4}},
                           ds_target(), "x");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("64-bit"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)import_deepspeed(
                   {{"train_batch_size", 64}, {"zero_optimization", {{"stage", 4294967298LL}}}},
                   ds_target(), "x"),
               InputError);
  EXPECT_THROW((void)import_deepspeed({{"train_batch_size", 64}, {"optimizer", {{"type", 5}}}},
                                      ds_target(), "x"),
               InputError);
}

// Found by review (2026-11-27): keys of the wrong type were ignored (or, for
// activation_checkpointing: 5, read as full recomputation) with exit 0. Each is InputError at its
// key now. "auto" bucket sizes stay warnings (Hugging Face Trainer configs give them).
TEST(import_deepspeed, KeysOfTheWrongTypeAreInputErrorsAtTheKey) {
  const std::vector<std::pair<nlohmann::json, std::string>> bad = {
      {{{"zero_optimization", {{"stage", 2}, {"overlap_comm", "true"}}}},
       "/zero_optimization/overlap_comm"},
      {{{"fp16", {1}}}, "/fp16"},
      {{{"bf16", true}}, "/bf16"},
      {{{"optimizer", "adam"}}, "/optimizer"},
      {{{"activation_checkpointing", 5}}, "/activation_checkpointing"},
      {{{"data_types", "fp32"}}, "/data_types"},
      {{{"zero_optimization", {{"reduce_bucket_size", "big"}}}},
       "/zero_optimization/reduce_bucket_size"},
      {{{"zero_optimization", {{"stage3_prefetch_bucket_size", -1}}}},
       "/zero_optimization/stage3_prefetch_bucket_size"}};
  for (const auto& [extra, path] : bad) {
    nlohmann::json ds = {{"train_micro_batch_size_per_gpu", 1}};
    ds.update(extra);
    try {
      (void)import_deepspeed(ds, ds_target(), "x");
      ADD_FAILURE() << "accepted " << ds.dump();
    } catch (const InputError& e) {
      ASSERT_FALSE(e.items().empty());
      EXPECT_EQ(e.items()[0].path, path) << ds.dump();
    }
  }
  const ImportResult r = import_deepspeed({{"train_micro_batch_size_per_gpu", 1},
                                           {"zero_optimization", {{"reduce_bucket_size", "auto"}}}},
                                          ds_target(), "x");
  EXPECT_TRUE(warns(r, "reduce_bucket_size: \"auto\""));
  // overlap_comm is DeepSpeed's Optional[bool]: null and "auto" keep the stage's default (found
  // by the second review: the first fix refused them), which is `stage == 3`
  // (DeepSpeedZeroConfig's overlap_comm validator; found by review, 2026-11-29: shardsim's own
  // default, true, was kept at every stage).
  for (const nlohmann::json& keep : {nlohmann::json(nullptr), nlohmann::json("auto")})
    for (const int stage : {0, 1, 2, 3}) {
      const ImportResult k =
          import_deepspeed({{"train_micro_batch_size_per_gpu", 1},
                            {"zero_optimization", {{"stage", stage}, {"overlap_comm", keep}}}},
                           ds_target(), "x");
      EXPECT_EQ(k.scenario["parallel"]["overlap_grad_reduce"], stage == 3) << keep.dump();
    }
}

// DeepSpeed's defaults where shardsim's differ (found by review, 2026-11-29: a stage-2 import ran
// 10-17 % faster than DeepSpeed, with shardsim's overlapped reduce and parameter gather):
// - no overlap_comm key: overlap_comm = (stage == 3), DeepSpeedZeroConfig's validator; no
//   zero_optimization section is stage 0, whose engine all-reduces after the backward pass;
// - ZeRO-1/2 all-gather the updated parameters inside the optimizer step (stage_1_and_2.py
//   step), so overlap_param_gather is false; stages 0 and 3 have no such gather and keep the key
//   unset. An explicit overlap_comm is kept.
TEST(import_deepspeed, OverlapDefaultsAreDeepSpeeds) {
  for (const int stage : {0, 1, 2, 3}) {
    const ImportResult r = import_deepspeed(
        {{"train_micro_batch_size_per_gpu", 1}, {"zero_optimization", {{"stage", stage}}}},
        ds_target(), "x");
    const nlohmann::json& p = r.scenario["parallel"];
    EXPECT_EQ(p["overlap_grad_reduce"], stage == 3) << stage;
    if (stage == 1 || stage == 2)
      EXPECT_EQ(p["overlap_param_gather"], false) << stage;
    else
      EXPECT_FALSE(p.contains("overlap_param_gather")) << stage;
  }
  const ImportResult none =
      import_deepspeed({{"train_micro_batch_size_per_gpu", 1}}, ds_target(), "x");
  EXPECT_EQ(none.scenario["parallel"]["overlap_grad_reduce"], false);
  const ImportResult given =
      import_deepspeed({{"train_micro_batch_size_per_gpu", 1},
                        {"zero_optimization", {{"stage", 2}, {"overlap_comm", true}}}},
                       ds_target(), "x");
  EXPECT_EQ(given.scenario["parallel"]["overlap_grad_reduce"], true);
  // Stage 0 reads no overlap_comm (the engine all-reduces after the backward pass): true is
  // imported as not overlapped, with a warning.
  const ImportResult stage0 =
      import_deepspeed({{"train_micro_batch_size_per_gpu", 1},
                        {"zero_optimization", {{"stage", 0}, {"overlap_comm", true}}}},
                       ds_target(), "x");
  EXPECT_EQ(stage0.scenario["parallel"]["overlap_grad_reduce"], false);
  EXPECT_TRUE(warns(stage0, "overlap_comm: true has no effect without ZeRO"));
  // Stage 3 with overlap_comm false: imported as said; the ZeRO-3 step now makes each unit's
  // backward wait for the previous unit's reduce-scatter (des/step_program.cc), so nothing is
  // warned.
  const ImportResult off =
      import_deepspeed({{"train_micro_batch_size_per_gpu", 1},
                        {"zero_optimization", {{"stage", 3}, {"overlap_comm", false}}}},
                       ds_target(), "x");
  EXPECT_EQ(off.scenario["parallel"]["overlap_grad_reduce"], false);
  const Scenario loaded = scenario_from_json(off.scenario, "");
  const auto checks = check_strategy(loaded);
  EXPECT_TRUE(std::none_of(
      checks.warnings.begin(), checks.warnings.end(),
      [](const std::string& w) { return w.find("overlap_grad_reduce") != std::string::npos; }));
}

// Found by review (2026-11-27): a config without fp16 or bf16 (fp32 training) warned "bf16 without
// ZeRO" because the check read "the bf16 section was decided" as "bf16 is on". The scenario's
// name is the config's file name without folder or extension (it was the path as given).
TEST(import_deepspeed, Fp32RunsGetNoBf16WarningAndTheNameIsTheFileStem) {
  const ImportResult r =
      import_deepspeed({{"train_micro_batch_size_per_gpu", 1}}, ds_target(), "../ds/zero0.json");
  EXPECT_EQ(r.scenario["training"]["precision"], "fp32");
  EXPECT_FALSE(warns(r, "bf16 without ZeRO"));
  EXPECT_EQ(r.scenario["name"], "zero0");
  // Neither source says whether fp32 GEMMs use TF32: the default (true) is kept and said so
  // (README: "The importers leave the default"; found by review, 2026-11-28, silently).
  EXPECT_TRUE(warns(r, "training.tf32 is left at true"));
  EXPECT_FALSE(r.scenario["training"].contains("tf32"));
  EXPECT_TRUE(warns(import_small_megatron({}), "training.tf32 is left at true"));
  EXPECT_FALSE(warns(import_small_megatron({"--bf16"}), "training.tf32"));
  // bf16 on without ZeRO still warns.
  EXPECT_TRUE(
      warns(import_deepspeed({{"train_micro_batch_size_per_gpu", 1}, {"bf16", {{"enabled", true}}}},
                             ds_target(), "x"),
            "bf16 without ZeRO"));
}

}  // namespace
}  // namespace shardsim
