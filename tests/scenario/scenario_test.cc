// Scenario loading: shipped presets parse strictly, examples load, presets and overrides merge,
// derived parallel degrees.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "simulator/core/diagnostics.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/presets.h"
#include "simulator/scenario/sections.h"
#include "simulator/scenario/validate.h"

namespace shardsim {
namespace {

// seq_len 2048: the GPT presets' learned position tables hold 2048 rows.
nlohmann::json minimal() {
  return nlohmann::json::parse(R"({
    "model": {"preset": "llama3-8b"},
    "training": {"seq_len": 2048, "global_batch": 64},
    "cluster": {"gpu": "h100-sxm", "nodes": 1}})");
}

TEST(Presets, RequiredNamesExist) {
  // DESIGN.md: preset names that must exist.
  for (const char* m : {"gpt3-175b", "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b",
                        "llama3-70b", "llama3-405b", "mixtral-8x7b", "deepseek-v3"})
    EXPECT_TRUE(find_preset(PresetKind::kModel, m)) << m;
  for (const char* g : {"v100-sxm-32gb", "a100-sxm-40gb", "a100-sxm-80gb", "h100-sxm", "h200-sxm",
                        "b200", "mi300x"})
    EXPECT_TRUE(find_preset(PresetKind::kGpu, g)) << g;
  // Narayanan et al. Table 1 family.
  for (const char* m : {"gpt-1.7b", "gpt-3.6b", "gpt-7.5b", "gpt-18.4b", "gpt-39.1b", "gpt-76.1b",
                        "gpt-145.6b", "gpt-310.1b", "gpt-529.6b", "gpt-1t"})
    EXPECT_TRUE(find_preset(PresetKind::kModel, m)) << m;
}

TEST(Presets, EveryModelParsesStrictly) {
  for (const auto& name : preset_names(PresetKind::kModel)) {
    auto raw = minimal();
    raw["model"]["preset"] = name;
    raw["parallel"] = {{"tp", 1}};
    EXPECT_NO_THROW({
      const Scenario s = scenario_from_json(raw, "");
      EXPECT_EQ(s.model.name, name);
    }) << name;
  }
}

TEST(Presets, EveryGpuAndClusterParsesStrictly) {
  for (const auto& gpu : preset_names(PresetKind::kGpu)) {
    auto raw = minimal();
    raw["cluster"]["gpu"] = gpu;
    EXPECT_NO_THROW({
      const Scenario s = scenario_from_json(raw, "");
      EXPECT_GT(s.cluster.gpu.memory_bytes, 0);
      EXPECT_GT(s.cluster.network.intra_node_GBps, 0);  // the GPU's default DGX-class network
    }) << gpu;
  }
  for (const auto& net : preset_names(PresetKind::kCluster)) {
    auto raw = minimal();
    raw["cluster"]["network"] = net;
    EXPECT_NO_THROW((void)scenario_from_json(raw, "")) << net;
  }
}

TEST(Presets, EveryExampleLoads) {
  const auto names = preset_names(PresetKind::kExample);
  EXPECT_GE(names.size(), 3u);
  for (const auto& name : names) EXPECT_NO_THROW((void)load_scenario(name)) << name;
}

TEST(Scenario, FileKeysOverridePresetValues) {
  auto raw = minimal();
  raw["model"]["layers"] = 4;  // llama3-8b has 32; the file's own key wins
  const Scenario s = scenario_from_json(raw, "");
  EXPECT_EQ(s.model.layers, 4);
  EXPECT_EQ(s.model.hidden, 4096);  // from the preset (Meta-Llama-3-8B config.json)
}

TEST(Scenario, SetOverridesApplyDottedKeysWithJsonOrBareValues) {
  const Scenario s = scenario_from_json(
      minimal(), "",
      {"parallel.tp=4", "cluster.gpu=a100-sxm-80gb", "training.flash_attention=false"});
  EXPECT_EQ(s.strategy.tp, 4);
  EXPECT_EQ(s.cluster.gpu.name, "a100-sxm-80gb");
  EXPECT_FALSE(s.training.flash_attention);
  // 8 GPUs / (tp 4) = dp 2.
  EXPECT_EQ(s.strategy.dp, 2);
}

TEST(Scenario, DataParallelDegreeDerivedFromGpuCount) {
  auto raw = minimal();
  raw["cluster"]["nodes"] = 4;  // 32 GPUs (h100-sxm preset: 8 per node)
  raw["parallel"] = {{"tp", 2}, {"pp", 2}};
  EXPECT_EQ(scenario_from_json(raw, "").strategy.dp, 8);  // 32 / (2 * 2)
}

TEST(Scenario, NodesDerivedFromDataParallelDegree) {
  auto raw = minimal();
  raw["cluster"].erase("nodes");
  raw["parallel"] = {{"tp", 8}, {"dp", 4}};  // 32 GPUs = 4 nodes of 8
  const Scenario s = scenario_from_json(raw, "");
  EXPECT_EQ(s.cluster.nodes, 4);
}

TEST(Scenario, CrossFieldErrorsNameTheNumbers) {
  auto raw = minimal();
  raw["parallel"] = {{"tp", 3}};
  try {
    (void)scenario_from_json(raw, "");
    FAIL() << "8 GPUs are not divisible by tp = 3";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not divisible by tp*pp*cp = 3*1*1 = 3"),
              std::string::npos)
        << e.what();
  }
}

// training.tf32: true by default (the behaviour before the key existed: fp32 GEMMs at TF32),
// read as a boolean, refused with its path otherwise, and written back into the resolved scenario
// that reports carry (so a report's scenario runs again the same way).
TEST(Scenario, Tf32IsABooleanWithTrueAsDefault) {
  auto raw = minimal();
  EXPECT_TRUE(scenario_from_json(raw, "").training.tf32);
  raw["training"]["tf32"] = false;
  const Scenario off = scenario_from_json(raw, "");
  EXPECT_FALSE(off.training.tf32);
  EXPECT_EQ(effective_training_json(off)["tf32"], false);
  raw["training"]["tf32"] = "no";
  try {
    (void)scenario_from_json(raw, "");
    FAIL() << "a string tf32 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/training/tf32"), std::string::npos) << e.what();
  }
}

// training.grad_accumulation_fusion (a boolean, true by default: Megatron's default),
// training.grad_accumulation_cast (in_add by default, or separate) and
// training.grad_clip_scaling (when_clipped by default, or always) are read, refused with their
// paths when mistyped, and written back into the resolved scenario that reports carry.
TEST(Scenario, GradientKeysDefaultToMegatronsAndAreEchoed) {
  auto raw = minimal();
  const Scenario plain = scenario_from_json(raw, "");
  EXPECT_TRUE(plain.training.grad_accumulation_fusion);
  EXPECT_EQ(plain.training.grad_clip_scaling, GradClipScaling::kWhenClipped);
  EXPECT_EQ(effective_training_json(plain)["grad_accumulation_fusion"], true);
  EXPECT_EQ(effective_training_json(plain)["grad_clip_scaling"], "when_clipped");
  EXPECT_EQ(plain.training.grad_accumulation_cast, GradAccumulationCast::kInAdd);
  EXPECT_EQ(effective_training_json(plain)["grad_accumulation_cast"], "in_add");
  raw["training"]["grad_accumulation_fusion"] = false;
  raw["training"]["grad_clip_scaling"] = "always";
  raw["training"]["grad_accumulation_cast"] = "separate";
  const Scenario set = scenario_from_json(raw, "");
  EXPECT_FALSE(set.training.grad_accumulation_fusion);
  EXPECT_EQ(set.training.grad_clip_scaling, GradClipScaling::kAlways);
  EXPECT_EQ(set.training.grad_accumulation_cast, GradAccumulationCast::kSeparate);
  EXPECT_EQ(effective_training_json(set)["grad_accumulation_fusion"], false);
  EXPECT_EQ(effective_training_json(set)["grad_clip_scaling"], "always");
  EXPECT_EQ(effective_training_json(set)["grad_accumulation_cast"], "separate");
  // A separate cast needs an unfused add of 16-bit gradients into an fp32 buffer; otherwise it
  // does nothing and says so (checked with fp32 gradients, then without).
  auto cast_warned = [](const nlohmann::json& j) {
    for (const auto& w : check_strategy(scenario_from_json(j, "")).warnings)
      if (w.find("grad_accumulation_cast \"separate\" has no effect") != std::string::npos)
        return true;
    return false;
  };
  raw["training"]["grad_dtype"] = "fp32";
  EXPECT_FALSE(cast_warned(raw));
  raw["training"]["grad_accumulation_fusion"] = true;
  EXPECT_TRUE(cast_warned(raw));
  raw["training"]["grad_accumulation_fusion"] = false;
  raw["training"]["grad_dtype"] = "same";
  EXPECT_TRUE(cast_warned(raw));
  raw["training"]["grad_dtype"] = "fp32";
  raw["training"]["precision"] = "fp32";  // fp32 gradients of fp32 parameters: nothing to cast
  EXPECT_TRUE(cast_warned(raw));
  raw["training"].erase("precision");
  // DeepSpeed runs its BF16 optimizer with ZeRO 0 or 1 only, and without optimizer offload.
  raw["parallel"]["zero"] = 2;
  EXPECT_TRUE(cast_warned(raw));
  raw["parallel"]["zero"] = 1;
  EXPECT_FALSE(cast_warned(raw));
  raw["parallel"]["offload_optimizer"] = true;
  EXPECT_TRUE(cast_warned(raw));
  raw["parallel"].erase("offload_optimizer");
  raw["parallel"].erase("zero");
  raw["training"].erase("grad_dtype");
  // An unknown value is refused naming its key.
  auto refused_naming = [](const nlohmann::json& j, const std::string& pointer) {
    try {
      (void)scenario_from_json(j, "");
    } catch (const InputError& e) {
      return std::string(e.what()).find(pointer) != std::string::npos;
    }
    return false;
  };
  raw["training"]["grad_accumulation_cast"] = "copy";
  EXPECT_TRUE(refused_naming(raw, "/training/grad_accumulation_cast"));
  raw["training"]["grad_accumulation_cast"] = "separate";
  raw["training"]["grad_accumulation_target"] = "grad";
  EXPECT_TRUE(refused_naming(raw, "/training/grad_accumulation_target"));
  raw["training"].erase("grad_accumulation_target");
  raw["training"]["grad_clip_scaling"] = "sometimes";
  EXPECT_TRUE(refused_naming(raw, "/training/grad_clip_scaling"));
}

// training.grad_accumulation_target: main_grad by default (a buffer every micro-batch adds into),
// param_grad for PyTorch's .grad (assigned on a step's first micro-batch). .grad has the
// parameters' dtype, so FP32 gradients of 16-bit parameters are refused under param_grad, naming
// the key; with the accumulation fused there is no add and it says so.
TEST(Scenario, GradientAccumulationTargetIsReadCheckedAndEchoed) {
  auto raw = minimal();
  const Scenario plain = scenario_from_json(raw, "");
  EXPECT_EQ(plain.training.grad_accumulation_target, GradAccumulationTarget::kMainGrad);
  EXPECT_EQ(effective_training_json(plain)["grad_accumulation_target"], "main_grad");
  raw["training"]["grad_accumulation_target"] = "param_grad";
  auto warned = [](const nlohmann::json& j) {
    for (const auto& w : check_strategy(scenario_from_json(j, "")).warnings)
      if (w.find("grad_accumulation_target \"param_grad\" has no effect") != std::string::npos)
        return true;
    return false;
  };
  const Scenario set = scenario_from_json(raw, "");
  EXPECT_EQ(set.training.grad_accumulation_target, GradAccumulationTarget::kParamGrad);
  EXPECT_EQ(effective_training_json(set)["grad_accumulation_target"], "param_grad");
  EXPECT_TRUE(warned(raw));  // fused by default
  // With fusion on nothing is accumulated unfused, so even fp32 gradients only warn.
  raw["training"]["grad_dtype"] = "fp32";
  EXPECT_TRUE(warned(raw));
  raw["training"].erase("grad_dtype");
  raw["training"]["grad_accumulation_fusion"] = false;
  EXPECT_FALSE(warned(raw));
  EXPECT_TRUE(check_strategy(scenario_from_json(raw, "")).errors.empty());
  raw["training"]["grad_dtype"] = "fp32";
  try {
    (void)scenario_from_json(raw, "");
    ADD_FAILURE() << "fp32 gradients in .grad of bf16 parameters were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/training/grad_accumulation_target"), std::string::npos)
        << e.what();
  }
  // fp32 parameters have fp32 .grad: nothing to refuse.
  raw["training"]["precision"] = "fp32";
  EXPECT_TRUE(check_strategy(scenario_from_json(raw, "")).errors.empty());
}

// training.attention_kernel picks the profile's measured attention curve; effects.attention_kernel
// false removes the curves (the score-GEMM estimate); a kernel the profile has not measured, where
// it has measured others, is a warning naming both; an empty name is an error naming the field.
TEST(Scenario, AttentionKernelIsReadSwitchedAndChecked) {
  auto raw = minimal();
  raw["cluster"]["gpu"] = "a100-sxm-80gb";  // measured: flash-attention-2 and -triton
  const Scenario fa2 = scenario_from_json(raw, "");
  EXPECT_EQ(fa2.training.attention_kernel, "flash-attention-2");  // the default
  EXPECT_FALSE(fa2.cluster.gpu.compute.attention_points.empty());
  // The strategy check's warnings (evaluate reports them).
  const auto mentions = [](const Scenario& s, const std::string& text) {
    const auto warnings = check_strategy(s).warnings;
    return std::ranges::any_of(
        warnings, [&](const std::string& w) { return w.find(text) != std::string::npos; });
  };
  EXPECT_FALSE(mentions(fa2, "attention_kernel"));
  raw["training"]["attention_kernel"] = "flash-attention-triton";
  EXPECT_EQ(scenario_from_json(raw, "").training.attention_kernel, "flash-attention-triton");
  EXPECT_TRUE(scenario_from_json(raw, "", {"effects.attention_kernel=false"})
                  .cluster.gpu.compute.attention_points.empty());
  raw["training"]["attention_kernel"] = "flash-atention-2";
  EXPECT_TRUE(mentions(scenario_from_json(raw, ""),
                       "training.attention_kernel \"flash-atention-2\" has no measured rates in "
                       "hardware profile 'a100-sxm-80gb' (it has flash-attention-2, "
                       "flash-attention-triton)"));
  raw["training"]["attention_kernel"] = "";
  try {
    (void)scenario_from_json(raw, "");
    FAIL() << "an empty attention_kernel is accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/training/attention_kernel"), std::string::npos)
        << e.what();
  }
}

// -0 is read as 0, and the report's echoed scenario says 0.0, not -0.0 (found by review,
// 2026-11-29).
TEST(Scenario, NegativeZeroIsReadAndEchoedAsZero) {
  const Scenario s = load_scenario("llama3-8b-8xh100", {"overheads.cuda_context_bytes=-0.0"});
  EXPECT_FALSE(std::signbit(s.overheads.cuda_context_bytes));
  EXPECT_FALSE(std::signbit(s.resolved["overheads"]["cuda_context_bytes"].get<double>()));
  EXPECT_EQ(s.resolved["overheads"]["cuda_context_bytes"].dump(), "0.0");
}

// A sliding window (found by review, 2026-11-29: Mistral's was dropped silently; priced since
// 2026-11-29 for fused attention): what the window does not change is warned about (unfused
// attention and the Triton kernel compute every score; Transformer Engine refuses the
// context-parallel ring under a window: exit 2), a window at least as long as the sequence changes
// nothing, a first windowed layer past the last windows none (transformers' max_window_layers reads
// so), and both keys are written back so the report's scenario keeps them.
TEST(Scenario, ASlidingWindowSaysWhatItDoesNotChange) {
  auto raw = minimal();
  raw["training"]["seq_len"] = 8192;
  const auto warning = [&](int window) {
    raw["model"]["sliding_window"] = window;
    for (const auto& w : check_strategy(scenario_from_json(raw, "")).warnings)
      if (w.find("model.sliding_window") == 0) return w;
    return std::string();
  };
  EXPECT_EQ(warning(4096), "");  // flash attention (the default), cp 1: priced, nothing to say
  raw["training"]["flash_attention"] = false;
  EXPECT_EQ(warning(4096).find("model.sliding_window (4096) is shorter than training.seq_len "
                               "(8192), but unfused attention computes and masks every score"),
            0u)
      << warning(4096);
  EXPECT_EQ(warning(8192), "");
  raw["training"]["flash_attention"] = true;
  raw["training"]["attention_kernel"] = "flash-attention-triton";
  EXPECT_NE(warning(4096).find("but training.attention_kernel \"flash-attention-triton\" takes "
                               "no window"),
            std::string::npos)
      << warning(4096);
  raw["training"].erase("attention_kernel");
  // Transformer Engine refuses a window on the ring (cp_comm_type p2p, the default), whatever its
  // length: exit 2 naming the key. With all_gather or a2a, which it runs, nothing to say.
  raw["parallel"] = {{"cp", 2}};
  for (const int window : {4096, 8192}) {
    raw["model"]["sliding_window"] = window;
    try {
      (void)scenario_from_json(raw, "");
      ADD_FAILURE() << "a window on the ring is accepted: " << window;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("/parallel/cp_comm_type: context parallelism (cp = 2) "
                                           "by \"p2p\" (parallel.cp_comm_type; \"p2p\" is its "
                                           "default) takes no sliding window in Transformer "
                                           "Engine, and layer 0 has one"),
                std::string::npos)
          << e.what();
    }
  }
  for (const char* type : {"all_gather", "a2a"}) {
    raw["parallel"]["cp_comm_type"] = type;
    EXPECT_EQ(warning(4096), "") << type;
  }
  raw.erase("parallel");
  raw["model"]["sliding_window_from_layer"] = 31;  // llama3-8b has 32 layers
  EXPECT_EQ(to_json(scenario_from_json(raw, "").model)["sliding_window"], 4096);
  EXPECT_EQ(to_json(scenario_from_json(raw, "").model)["sliding_window_from_layer"], 31);
  const auto warned = [&](const std::string& text) {
    for (const auto& w : check_strategy(scenario_from_json(raw, "")).warnings)
      if (w == text) return true;
    return false;
  };
  raw["model"]["sliding_window_from_layer"] = 33;
  EXPECT_TRUE(
      warned("no layer uses model.sliding_window: model.sliding_window_from_layer = 33 and "
             "model.sliding_window_full_every = 0 leave none of the 32 layers "
             "(model.layers)"));
  // The keys together: layer 31 alone from 31 on, and it is the 32nd, which every 32nd makes full.
  raw["model"]["sliding_window_from_layer"] = 31;
  raw["model"]["sliding_window_full_every"] = 32;
  EXPECT_TRUE(
      warned("no layer uses model.sliding_window: model.sliding_window_from_layer = 31 and "
             "model.sliding_window_full_every = 32 leave none of the 32 layers "
             "(model.layers)"));
  raw["model"].erase("sliding_window_full_every");
  raw["model"]["sliding_window"] = 0;
  raw["model"]["sliding_window_from_layer"] = 4;
  EXPECT_TRUE(
      warned("model.sliding_window_from_layer = 4 is ignored: model.sliding_window is 0 "
             "(no window)"));
  raw["model"]["sliding_window_from_layer"] = 0;
  raw["model"]["sliding_window_full_every"] = 3;
  EXPECT_TRUE(
      warned("model.sliding_window_full_every = 3 is ignored: model.sliding_window is 0 "
             "(no window)"));
  raw["model"]["sliding_window"] = 4096;
  raw["model"]["sliding_window_full_every"] = 1;
  EXPECT_TRUE(
      warned("no layer uses model.sliding_window: model.sliding_window_from_layer = 0 and "
             "model.sliding_window_full_every = 1 leave none of the 32 layers "
             "(model.layers)"));
  raw["model"]["sliding_window_full_every"] = 6;  // Gemma 3's pattern: written back
  EXPECT_EQ(to_json(scenario_from_json(raw, "").model)["sliding_window_full_every"], 6);
}

// A whole number written with a point counts in the search lists as it does for a single key
// (parallel.tp 2.0 is read as 2; found by review, 2026-11-29: search.tp [2.0] was refused); 2.5
// and an unsigned value past int64 are refused.
TEST(Scenario, SearchListsTakeWholeNumbersWrittenWithAPoint) {
  auto raw = minimal();
  raw["search"] = nlohmann::json::parse(R"({"tp": [2.0, 4], "micro_batch": [1.0]})");
  const Scenario s = scenario_from_json(raw, "");
  EXPECT_EQ(s.search.tp, (std::vector<int>{2, 4}));
  EXPECT_EQ(s.search.micro_batch, (std::vector<std::int64_t>{1}));
  for (const char* bad : {R"({"tp": [2.5]})", R"({"tp": [18446744073709551615]})"}) {
    raw["search"] = nlohmann::json::parse(bad);
    try {
      (void)scenario_from_json(raw, "");
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.items().front().path, "/search/tp/0") << bad;
    }
  }
}

// Groups of one kind that sit differently on the nodes are warned about: the collectives of a kind
// are priced for one placement. On 3 nodes of 8 GPUs, rank order tp-cp-dp-pp (group spans of
// s x n consecutive ranks from 0):
// - tp 3 (spans of 3: {6, 7, 8} crosses the first node boundary) and dp 8 at stride 3 (span 24
//   covers the 3 nodes, but 8 / 3 is no whole number of members per node) are warned about;
// - tp 4, dp 6: tp spans of 4 tile a node; dp at stride 4 puts 8 / 4 = 2 per node on each of the
//   3 nodes: no warning;
// - tp 2, dp 3, pp 4: dp spans of 6 do not tile 8 ({6..11} crosses), and pp at stride 6 puts
//   members 6 apart (8 / 6 no whole number): both warned about; tp 2 is not;
// - tp 2, dp 6, pp 2: pp's stride 12 is at least the node, so each member has a node of its own
//   in every group: no warning for pp (found by review, 2026-11-29: it was warned about); dp
//   spans of 12 do not cover whole nodes ({12..23} is half of node 1 and node 2): warned.
TEST(Scenario, GroupsThatSitDifferentlyOnTheNodesAreWarnedAbout) {
  auto raw = minimal();
  raw["model"] = {{"preset", "gpt3-175b"}};
  raw["cluster"] = {{"gpu", "h100-sxm"}, {"nodes", 3}};
  raw["training"] = {{"seq_len", 2048}, {"global_batch", 48}, {"micro_batch", 1}};
  const auto warned = [&](int tp, int dp, int pp) {
    raw["parallel"] = {{"tp", tp}, {"dp", dp}, {"pp", pp}};
    std::vector<std::string> dims;
    for (const auto& w : check_strategy(scenario_from_json(raw, "")).warnings)
      for (const char* dim : {"tp", "cp", "dp", "pp"})
        if (w.find(std::string("the parallel.") + dim + " groups") == 0) dims.push_back(dim);
    return dims;
  };
  EXPECT_EQ(warned(3, 8, 1), (std::vector<std::string>{"tp", "dp"}));
  EXPECT_EQ(warned(4, 6, 1), std::vector<std::string>{});
  EXPECT_EQ(warned(2, 3, 4), (std::vector<std::string>{"dp", "pp"}));
  EXPECT_EQ(warned(2, 6, 2), (std::vector<std::string>{"dp"}));
  raw["parallel"] = {{"tp", 3}, {"dp", 8}, {"pp", 1}};
  const auto all = check_strategy(scenario_from_json(raw, "")).warnings;
  EXPECT_TRUE(std::ranges::any_of(all, [](const std::string& w) {
    return w.find(
               "the parallel.dp groups (8 members 3 ranks apart in rank order tp-cp-dp-pp, "
               "each spanning 24 consecutive ranks) do not sit alike on nodes of 8 GPUs") == 0;
  }));
}

TEST(Scenario, CrossEntropyIsReadSwitchedAndChecked) {
  auto raw = minimal();
  const Scenario plain = scenario_from_json(raw, "");
  EXPECT_EQ(plain.training.cross_entropy, CrossEntropyKernel::kVocabParallel);  // the default
  raw["training"]["cross_entropy"] = "fused";
  EXPECT_EQ(scenario_from_json(raw, "").training.cross_entropy, CrossEntropyKernel::kFused);
  // The switch leaves the scenario's choice alone (the cost context reads both, step_costs.cc).
  const Scenario off = scenario_from_json(raw, "", {"effects.cross_entropy_traffic=false"});
  EXPECT_FALSE(off.effects.cross_entropy_traffic);
  EXPECT_EQ(off.training.cross_entropy, CrossEntropyKernel::kFused);
  raw["training"]["cross_entropy"] = "megatron";
  try {
    (void)scenario_from_json(raw, "");
    FAIL() << "an unknown cross_entropy is accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("/training/cross_entropy"), std::string::npos) << what;
    EXPECT_NE(what.find("vocab-parallel"), std::string::npos) << what;  // names the choices
  }
}

}  // namespace
}  // namespace shardsim
