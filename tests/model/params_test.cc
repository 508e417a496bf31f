// Parameter counts (simulator/model/params.h) against published totals.
//
// Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
// Megatron-LM", SC'21 (arXiv 2104.04473), §5.1: P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h))
// = 12 l h^2 + 13 l h + (V + s) h, with V = 51200, s = 2048; Table 1 prints 1.7, 3.6, 7.5, 18.4,
// 39.1, 76.1, 145.6, 310.1, 529.6, 1008.0 billion. The formula omits the final LayerNorm (2h),
// which the library counts; it does not change any printed value.
//
// Hugging Face checkpoints (exact totals, the sum of numel over the model's parameters, as
// reported by transformers' model.num_parameters() and the Hub's safetensors parameter count;
// also listed by KerasHub presets "llama_7b_en" / "mixtral_8_7b_en"):
//   meta-llama/Llama-2-7b-hf          6,738,415,616
//   meta-llama/Meta-Llama-3-8B        8,030,261,248
//   mistralai/Mixtral-8x7B-v0.1      46,702,792,704
#include "simulator/model/params.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "simulator/core/diagnostics.h"
#include "simulator/model/hf_import.h"
#include "simulator/scenario/presets.h"

namespace shardsim {
namespace {

ModelConfig preset_model(const std::string& name) {
  const auto preset = find_preset(PresetKind::kModel, name);
  EXPECT_TRUE(preset.has_value()) << "no model preset " << name;
  ModelConfig m;
  if (!preset) return m;
  Diagnostics diags;
  read_model_config((*preset)["model"], "/model", diags, m);
  diags.throw_if_any();
  m.name = name;
  return m;
}

struct Table1Row {
  const char* preset;
  int layers;
  std::int64_t hidden;
  int heads;
  double billions;  // as printed in Narayanan Table 1
};

// Narayanan et al. Table 1 (heads, hidden, layers, parameter count in billions).
constexpr Table1Row kTable1[] = {
    {"gpt-1.7b", 24, 2304, 24, 1.7},        {"gpt-3.6b", 30, 3072, 32, 3.6},
    {"gpt-7.5b", 36, 4096, 32, 7.5},        {"gpt-18.4b", 40, 6144, 48, 18.4},
    {"gpt-39.1b", 48, 8192, 64, 39.1},      {"gpt-76.1b", 60, 10240, 80, 76.1},
    {"gpt-145.6b", 80, 12288, 96, 145.6},   {"gpt-310.1b", 96, 16384, 128, 310.1},
    {"gpt-529.6b", 105, 20480, 128, 529.6}, {"gpt-1t", 128, 25600, 160, 1008.0},
};

double narayanan(double l, double h, double V = 51200, double s = 2048) {
  return 12 * l * h * h + 13 * l * h + (V + s) * h;
}

TEST(params_count, NarayananTable1) {
  for (const auto& r : kTable1) {
    SCOPED_TRACE(r.preset);
    const ModelConfig m = preset_model(r.preset);
    ASSERT_EQ(m.layers, r.layers);
    ASSERT_EQ(m.hidden, r.hidden);
    ASSERT_EQ(m.heads, r.heads);
    const ParamTotals t = count_parameters(m, 2048);
    // Printed to 0.1 B.
    EXPECT_DOUBLE_EQ(std::round(t.total / 1e8) / 10, r.billions);
    // Exactly the formula plus the final LayerNorm.
    const double h = double(r.hidden);
    EXPECT_DOUBLE_EQ(t.total, narayanan(r.layers, h) + 2 * h);
    // Dense model: every parameter is active; tied embeddings: V h + s h.
    EXPECT_DOUBLE_EQ(t.active, t.total);
    EXPECT_DOUBLE_EQ(t.embedding, (51200 + 2048) * h);
    // DeepSpeed's largest module: the word embedding V h, or from h = 12,800 the MLP's first
    // weight h x 4h.
    EXPECT_DOUBLE_EQ(t.largest_layer, std::max(51200 * h, 4 * h * h));
  }
}

// One row worked by hand: gpt-1.7b (l = 24, h = 2304).
//   12 l h^2 = 12 x 24 x 5,308,416 = 1,528,823,808
//   13 l h   = 13 x 24 x 2304      =       718,848
//   (V+s) h  = 53,248 x 2304       =   122,683,392
//   sum = 1,652,226,048 (Table 1: 1.7B); + final LayerNorm 2h = 4,608 -> 1,652,230,656.
TEST(params_count, Gpt1_7bByHand) {
  const ParamTotals t = count_parameters(preset_model("gpt-1.7b"), 2048);
  EXPECT_DOUBLE_EQ(t.total, 1652230656);
  EXPECT_DOUBLE_EQ(t.total - 2 * 2304, 1652226048);
  // DeepSpeed's largest module: the word embedding, 51,200 x 2304 = 117,964,800 (the MLP's
  // first weight is 4 h^2 = 21,233,664).
  EXPECT_DOUBLE_EQ(t.largest_layer, 117964800);
}

// Llama 2 7B: per layer attention 4h^2 = 67,108,864, SwiGLU 3 h f = 3 x 4096 x 11008 =
// 135,266,304, two RMSNorms 8,192 -> 202,383,360 x 32 = 6,476,267,520; untied embedding and
// output 2 x 32000 x 4096 = 262,144,000; final RMSNorm 4,096. Total 6,738,415,616.
TEST(params_count, Llama2_7bMatchesHfCheckpoint) {
  const ParamTotals t = count_parameters(preset_model("llama2-7b"), 4096);
  EXPECT_DOUBLE_EQ(t.total, 6738415616);
  EXPECT_DOUBLE_EQ(t.active, t.total);
  EXPECT_DOUBLE_EQ(t.embedding, 262144000);
  // DeepSpeed's largest module: the embedding (or the untied output), 32000 x 4096 = 131,072,000;
  // the gate (or up) projection is 4096 x 11008 = 45,088,768.
  EXPECT_DOUBLE_EQ(t.largest_layer, 131072000);
}

// DeepSpeed's "largest layer" where a block's fused weights would exceed the embedding (found by
// review): Llama 2 70B's gate and up projections fused are 8192 x 2 x 28672 = 469,762,048, but
// Hugging Face holds them as two modules of 234,881,024, and q_proj is 8192 x 8192 = 67,108,864;
// so the largest module is the embedding, 32000 x 8192 = 262,144,000.
TEST(params_count, Llama2_70bLargestModuleIsTheEmbedding) {
  const ParamTotals t = count_parameters(preset_model("llama2-70b"), 4096);
  EXPECT_DOUBLE_EQ(t.largest_layer, 262144000);
}

// Llama 3 8B: GQA (8 KV heads of 128): attention 2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040;
// SwiGLU 3 x 4096 x 14336 = 176,160,768; norms 8,192 -> 218,112,000 x 32 = 6,979,584,000;
// embedding + output 2 x 128256 x 4096 = 1,050,673,152; final norm 4,096. Total 8,030,261,248.
TEST(params_count, Llama3_8bMatchesHfCheckpoint) {
  const ParamTotals t = count_parameters(preset_model("llama3-8b"), 8192);
  EXPECT_DOUBLE_EQ(t.total, 8030261248);
  EXPECT_DOUBLE_EQ(t.embedding, 1050673152);
}

// Mixtral 8x7B: per layer attention 41,943,040 (as Llama 3 8B), 8 experts x 176,160,768 =
// 1,409,286,144, router 4096 x 8 = 32,768, norms 8,192 -> 1,451,270,144 x 32 = 46,440,644,608;
// embedding + output 2 x 32000 x 4096 = 262,144,000; final norm 4,096. Total 46,702,792,704.
// Active (top-2 of 8): each layer keeps 2/8 of the experts: total - 32 x 6 x 176,160,768
// = 12,879,925,248 (Mistral AI: "12.9B active parameters").
TEST(params_count, Mixtral8x7bMatchesHfCheckpoint) {
  const ParamTotals t = count_parameters(preset_model("mixtral-8x7b"), 4096);
  EXPECT_DOUBLE_EQ(t.total, 46702792704);
  EXPECT_DOUBLE_EQ(t.active, 12879925248);
  EXPECT_DOUBLE_EQ(std::round(t.active / 1e8) / 10, 12.9);
  // DeepSpeed's largest module: the embedding, 32000 x 4096 = 131,072,000; one expert's gate
  // (w1) is 4096 x 14336 = 58,720,256.
  EXPECT_DOUBLE_EQ(t.largest_layer, 131072000);
}

// DeepSeek-V3 (arXiv 2412.19437 Table/§4.2: 671B total, 37B activated per token; the 14B MTP
// module is not modelled). By hand, h 7168, 128 heads, MLA ranks 1536 (q) and 512 (kv), head
// dims 128 (no-rope) + 64 (rope), v 128:
//   attention 7168x1536 + 1536 + 1536x128x192 + 7168x576 + 512 + 512x128x256 + 128x128x7168
//             = 187,107,328; norms 2 x 7168 = 14,336;
//   3 dense layers with SwiGLU 3 x 7168 x 18432 = 396,361,728 -> 583,483,392 each;
//   58 MoE layers: router 7168 x 256 = 1,835,008 + 256 routed + 1 shared experts of
//   3 x 7168 x 2048 = 44,040,192 -> 11,507,286,016 each;
//   embedding and output 2 x 129280 x 7168 = 1,853,358,080; final norm 7,168.
//   Total 671,026,404,352. Active: 8 of 256 routed experts: each MoE layer keeps 585,318,400 ->
//   37,552,282,624.
TEST(params_count, DeepSeekV3ByHand) {
  const ParamTotals t = count_parameters(preset_model("deepseek-v3"), 4096);
  EXPECT_DOUBLE_EQ(t.total, 671026404352);
  EXPECT_DOUBLE_EQ(t.active, 37552282624);
  EXPECT_DOUBLE_EQ(std::round(t.total / 1e9), 671);  // the paper's "671B"
  EXPECT_GE(t.active, 37e9);                         // the paper's "37B" activated
  EXPECT_LT(t.active, 38e9);
}

// Models imported from Hugging Face configs (tests/data/hf) count as their published totals:
// GPT-2 small 124,439,808 (the "124M" checkpoint, tied embeddings); Qwen2-7B 7,615,616,512 (its
// model card's 7.62B: QKV biases, untied 152,064-token vocabulary); Pythia-12B 11,846,072,320
// (Biderman et al. 2023, Table 1 total parameters; GPT-NeoX with untied 50,688-row vocabulary).
ModelConfig hf_model(const std::string& file) {
  std::string path = SHARDSIM_TEST_DATA_DIR;  // appended: see hf_import_test.cc data_path
  path += "/hf/";
  path += file;
  const nlohmann::json j = hf_config_to_model_json(load_hf_config_file(path), path);
  Diagnostics diags;
  ModelConfig m;
  read_model_config(j, "/model", diags, m);
  EXPECT_TRUE(diags.empty()) << diags.format();
  return m;
}

TEST(params_count, HuggingFaceImportsMatchPublishedTotals) {
  EXPECT_DOUBLE_EQ(count_parameters(hf_model("gpt2.json"), 1024).total, 124439808);
  EXPECT_DOUBLE_EQ(count_parameters(hf_model("qwen2_7b.json"), 4096).total, 7615616512);
  EXPECT_DOUBLE_EQ(count_parameters(hf_model("pythia_12b_deduped.json"), 2048).total, 11846072320);
}

// Megatron pads the vocabulary to a multiple of 128 x tp.
TEST(params_count, PaddedVocab) {
  EXPECT_DOUBLE_EQ(padded_vocab(51200, 1), 51200);
  EXPECT_DOUBLE_EQ(padded_vocab(51200, 8), 51200);    // 51200 = 50 x 1024
  EXPECT_DOUBLE_EQ(padded_vocab(50257, 1), 50304);    // GPT-2: 393 x 128
  EXPECT_DOUBLE_EQ(padded_vocab(32000, 8), 32768);    // 32 x 1024
  EXPECT_DOUBLE_EQ(padded_vocab(128256, 8), 129024);  // 126 x 1024
}

}  // namespace
}  // namespace shardsim
