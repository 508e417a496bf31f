// Tests of the Hugging Face config.json importer. The configs under tests/data/hf/ are written from
// the public config.json of the repository named in each file's "_source"; every expected value
// below names the HF key it comes from.
#include "simulator/model/hf_import.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>

#include "simulator/core/diagnostics.h"

namespace shardsim {
namespace {

using nlohmann::json;

std::string data_path(const std::string& name) {
  // Appended, not std::string(...) + "/hf/" + name: GCC 12 at -O1 with the tests' precompiled
  // header reads the inlined operator+ as writing out of bounds (-Warray-bounds).
  std::string path = SHARDSIM_TEST_DATA_DIR;
  path += "/hf/";
  path += name;
  return path;
}

json import_file(const std::string& name) {
  return hf_config_to_model_json(load_hf_config_file(data_path(name)), name);
}

// The first diagnostic of the InputError thrown by `f`; fails the test if nothing is thrown.
template <class F>
Diagnostic first_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    EXPECT_FALSE(e.items().empty());
    return e.items().empty() ? Diagnostic{} : e.items().front();
  }
  ADD_FAILURE() << "no InputError thrown";
  return {};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(HfImport, Llama3_8B) {
  const json m = import_file("llama3_8b.json");
  EXPECT_EQ(m["layers"], 32);              // num_hidden_layers 32
  EXPECT_EQ(m["hidden"], 4096);            // hidden_size 4096
  EXPECT_EQ(m["heads"], 32);               // num_attention_heads 32
  EXPECT_EQ(m["kv_heads"], 8);             // num_key_value_heads 8 (GQA)
  EXPECT_EQ(m["ffn_hidden"], 14336);       // intermediate_size 14336
  EXPECT_EQ(m["vocab"], 128256);           // vocab_size 128256
  EXPECT_EQ(m["ffn_type"], "swiglu");      // hidden_act silu, gated MLP (LlamaMLP)
  EXPECT_EQ(m["norm"], "rmsnorm");         // rms_norm_eps: LlamaRMSNorm
  EXPECT_EQ(m["position"], "rope");        // rope_theta 500000.0
  EXPECT_EQ(m["tied_embeddings"], false);  // tie_word_embeddings false
  EXPECT_EQ(m["bias"], false);             // mlp_bias absent (default false)
  EXPECT_EQ(m["qkv_bias"], false);         // attention_bias false
  EXPECT_EQ(m["dropout"], false);          // attention_dropout 0.0
  EXPECT_EQ(m["attention"], "standard");
  EXPECT_FALSE(m.contains("max_position"));  // rope: no position table
  EXPECT_FALSE(m.contains("head_dim"));      // head_dim absent: hidden / heads = 128
  EXPECT_FALSE(m.contains("moe"));
}

TEST(HfImport, Mixtral8x7B) {
  const json m = import_file("mixtral_8x7b.json");
  EXPECT_EQ(m["layers"], 32);          // num_hidden_layers 32
  EXPECT_EQ(m["hidden"], 4096);        // hidden_size 4096
  EXPECT_EQ(m["kv_heads"], 8);         // num_key_value_heads 8
  EXPECT_EQ(m["vocab"], 32000);        // vocab_size 32000
  EXPECT_EQ(m["ffn_type"], "swiglu");  // hidden_act silu, MixtralBlockSparseTop2MLP w1/w2/w3
  ASSERT_TRUE(m.contains("moe"));
  EXPECT_EQ(m["moe"]["experts"], 8);                // num_local_experts 8
  EXPECT_EQ(m["moe"]["top_k"], 2);                  // num_experts_per_tok 2
  EXPECT_EQ(m["moe"]["expert_ffn_hidden"], 14336);  // intermediate_size 14336 (per expert)
  EXPECT_EQ(m["moe"]["shared_experts"], 0);         // Mixtral has no shared expert
  EXPECT_EQ(m["moe"]["first_dense_layers"], 0);     // every layer is sparse
}

TEST(HfImport, Qwen2_7B) {
  const json m = import_file("qwen2_7b.json");
  EXPECT_EQ(m["layers"], 28);         // num_hidden_layers 28
  EXPECT_EQ(m["hidden"], 3584);       // hidden_size 3584
  EXPECT_EQ(m["heads"], 28);          // num_attention_heads 28
  EXPECT_EQ(m["kv_heads"], 4);        // num_key_value_heads 4
  EXPECT_EQ(m["ffn_hidden"], 18944);  // intermediate_size 18944
  EXPECT_EQ(m["vocab"], 152064);      // vocab_size 152064
  EXPECT_EQ(m["qkv_bias"], true);     // Qwen2Attention: q/k/v_proj bias=True, o_proj bias=False
  EXPECT_EQ(m["bias"], false);
  EXPECT_EQ(m["tied_embeddings"], false);  // tie_word_embeddings false
}

// sliding_window is kept as a model key (found by review, 2026-11-29: it was dropped silently).
// Mistral 7B v0.1 sets 4096; Mixtral 8x7B sets null (no window); Qwen2-7B sets 131072 but
// use_sliding_window false, so no window either.
TEST(HfImport, SlidingWindowIsKeptWhereTheModelUsesOne) {
  const json mistral = import_file("mistral_7b_v0_1.json");
  EXPECT_EQ(mistral["sliding_window"], 4096);  // sliding_window 4096
  EXPECT_EQ(mistral["kv_heads"], 8);           // num_key_value_heads 8
  EXPECT_FALSE(import_file("mixtral_8x7b.json").contains("sliding_window"));  // null
  EXPECT_FALSE(
      import_file("qwen2_7b.json").contains("sliding_window"));  // use_sliding_window false
  EXPECT_FALSE(import_file("llama3_8b.json").contains("sliding_window"));
  // Absent, the key takes transformers' default: MistralConfig 4096, MixtralConfig none.
  json hf = load_hf_config_file(data_path("mistral_7b_v0_1.json"));
  hf.erase("sliding_window");
  EXPECT_EQ(hf_config_to_model_json(hf, "m")["sliding_window"], 4096);
  hf = load_hf_config_file(data_path("mixtral_8x7b.json"));
  hf.erase("sliding_window");
  EXPECT_FALSE(hf_config_to_model_json(hf, "x").contains("sliding_window"));
}

// Qwen2 windows the layers from max_window_layers on (transformers' Qwen2Config: layer i is
// "sliding_attention" when use_sliding_window and i >= max_window_layers, default 28), unless
// layer_types lists each layer's kind. Qwen2-7B has 28 layers.
TEST(HfImport, Qwen2WindowsTheLayersFromMaxWindowLayersOn) {
  json hf = load_hf_config_file(data_path("qwen2_7b.json"));
  hf["use_sliding_window"] = true;
  hf["sliding_window"] = 4096;
  EXPECT_FALSE(hf_config_to_model_json(hf, "q").contains("sliding_window"));  // 28 of 28: none
  hf["max_window_layers"] = 20;
  json m = hf_config_to_model_json(hf, "q");
  EXPECT_EQ(m["sliding_window"], 4096);
  EXPECT_EQ(m["sliding_window_from_layer"], 20);  // layers 20..27 slide
  hf["max_window_layers"] = 0;
  m = hf_config_to_model_json(hf, "q");
  EXPECT_EQ(m["sliding_window"], 4096);
  EXPECT_FALSE(m.contains("sliding_window_from_layer"));  // every layer: the key's default 0
  hf.erase("max_window_layers");
  EXPECT_FALSE(hf_config_to_model_json(hf, "q").contains("sliding_window"));  // default 28
  // An absent sliding_window is Qwen2Config's default 4096; an explicit null is none.
  hf["max_window_layers"] = 0;
  hf.erase("sliding_window");
  EXPECT_EQ(hf_config_to_model_json(hf, "q")["sliding_window"], 4096);
  hf["sliding_window"] = nullptr;
  EXPECT_FALSE(hf_config_to_model_json(hf, "q").contains("sliding_window"));
  hf["sliding_window"] = 4096;
  hf.erase("max_window_layers");
  // An explicit layer_types list decides: 25 full layers, then 3 sliding ones.
  hf["layer_types"] = json::array();
  for (int i = 0; i < 28; ++i)
    hf["layer_types"].push_back(i < 25 ? "full_attention" : "sliding_attention");
  EXPECT_EQ(hf_config_to_model_json(hf, "q")["sliding_window_from_layer"], 25);
  // Gemma 2's and GPT-OSS's alternation, sliding first, is every 2nd layer full.
  for (int i = 0; i < 28; ++i)
    hf["layer_types"][i] = i % 2 == 0 ? "sliding_attention" : "full_attention";
  m = hf_config_to_model_json(hf, "q");
  EXPECT_FALSE(m.contains("sliding_window_from_layer"));
  EXPECT_EQ(m["sliding_window_full_every"], 2);
  // Sliding, full, full, then sliding: no first layer and period express it; an error naming it.
  for (int i = 0; i < 28; ++i)
    hf["layer_types"][i] = i == 1 || i == 2 ? "full_attention" : "sliding_attention";
  Diagnostic d = first_error([&] { (void)hf_config_to_model_json(hf, "q"); });
  EXPECT_EQ(d.path, "/model/hf_config");
  EXPECT_TRUE(contains(d.message,
                       "\"layer_types\" must be full-attention layers, then sliding-window "
                       "ones but for every N-th"))
      << d.message;
  hf["layer_types"] = json::array({"full_attention"});
  d = first_error([&] { (void)hf_config_to_model_json(hf, "q"); });
  EXPECT_TRUE(contains(d.message, "must be an array of num_hidden_layers (28) strings"))
      << d.message;
  hf["max_window_layers"] = nullptr;  // not read when layer_types is given
  hf["layer_types"] = json::array();
  for (int i = 0; i < 28; ++i) hf["layer_types"].push_back("sliding_attention");
  EXPECT_FALSE(hf_config_to_model_json(hf, "q").contains("sliding_window_from_layer"));  // 0
  hf["layer_types"] = nullptr;  // null: absent
  // null fails in transformers (i >= None); a fraction shardsim refuses (no model has one)
  for (const json& bad : {json(nullptr), json(0.5)}) {
    hf["max_window_layers"] = bad;
    d = first_error([&] { (void)hf_config_to_model_json(hf, "q"); });
    EXPECT_TRUE(contains(d.message, "\"max_window_layers\" must be a non-negative integer"))
        << d.message;
  }
  hf["max_window_layers"] = -1;
  d = first_error([&] { (void)hf_config_to_model_json(hf, "q"); });
  EXPECT_TRUE(
      contains(d.message, "\"max_window_layers\" must be a non-negative integer, got integer -1"))
      << d.message;
}

TEST(HfImport, Gpt2Small) {
  const json m = import_file("gpt2.json");
  EXPECT_EQ(m["layers"], 12);           // n_layer 12
  EXPECT_EQ(m["hidden"], 768);          // n_embd 768
  EXPECT_EQ(m["heads"], 12);            // n_head 12
  EXPECT_EQ(m["ffn_hidden"], 3072);     // n_inner absent -> 4 * n_embd
  EXPECT_EQ(m["vocab"], 50257);         // vocab_size 50257
  EXPECT_EQ(m["max_position"], 1024);   // n_positions 1024
  EXPECT_EQ(m["position"], "learned");  // wpe table
  EXPECT_EQ(m["ffn_type"], "gelu");     // activation_function gelu_new
  EXPECT_EQ(m["norm"], "layernorm");
  EXPECT_EQ(m["bias"], true);             // Conv1D layers carry biases
  EXPECT_EQ(m["tied_embeddings"], true);  // GPT2LMHeadModel ties lm_head to wte (default)
  EXPECT_EQ(m["dropout"], true);          // resid_pdrop / embd_pdrop / attn_pdrop 0.1
}

TEST(HfImport, Gpt2NoDropout) {
  json hf = load_hf_config_file(data_path("gpt2.json"));
  hf["resid_pdrop"] = 0.0;
  hf["embd_pdrop"] = 0.0;
  hf["attn_pdrop"] = 0.0;
  hf["n_inner"] = 2048;
  const json m = hf_config_to_model_json(hf, "gpt2 variant");
  EXPECT_EQ(m["dropout"], false);    // every *_pdrop is 0
  EXPECT_EQ(m["ffn_hidden"], 2048);  // n_inner set explicitly
}

TEST(HfImport, PythiaGptNeoX) {
  const json m = import_file("pythia_12b_deduped.json");
  EXPECT_EQ(m["layers"], 36);         // num_hidden_layers 36
  EXPECT_EQ(m["hidden"], 5120);       // hidden_size 5120
  EXPECT_EQ(m["heads"], 40);          // num_attention_heads 40
  EXPECT_EQ(m["ffn_hidden"], 20480);  // intermediate_size 20480
  EXPECT_EQ(m["vocab"], 50688);       // vocab_size 50688
  EXPECT_EQ(m["position"], "rope");   // rotary_pct 0.25 (partial rotary, no parameters)
  EXPECT_EQ(m["norm"], "layernorm");
  EXPECT_EQ(m["ffn_type"], "gelu");        // hidden_act gelu
  EXPECT_EQ(m["bias"], true);              // GPT-NeoX linear layers carry biases
  EXPECT_EQ(m["tied_embeddings"], false);  // tie_word_embeddings false (separate embed_out)
  EXPECT_EQ(m["dropout"], false);          // no dropout keys: GPTNeoXConfig defaults 0.0
}

TEST(HfImport, OnlyScenarioKeysAndAnnotationsIgnored) {
  const std::set<std::string> allowed = {
      "layers",     "hidden",       "heads",    "kv_heads",       "head_dim",
      "ffn_hidden", "vocab",        "ffn_type", "norm",           "tied_embeddings",
      "position",   "max_position", "bias",     "qkv_bias",       "dropout",
      "attention",  "mla",          "moe",      "sliding_window", "sliding_window_from_layer"};
  for (const char* name : {"llama3_8b.json", "mixtral_8x7b.json", "qwen2_7b.json", "gpt2.json",
                           "pythia_12b_deduped.json", "mistral_7b_v0_1.json"}) {
    const json m = import_file(name);  // each file carries a "_source" annotation
    for (const auto& [key, value] : m.items())
      EXPECT_TRUE(allowed.count(key)) << name << ": unexpected key " << key;
  }
}

TEST(HfImport, ArchitecturesFallbackAndHeadDim) {
  json hf = load_hf_config_file(data_path("llama3_8b.json"));
  hf.erase("model_type");
  hf["head_dim"] = 64;  // an explicit head_dim (as Mistral-Nemo sets) is passed through
  const json m = hf_config_to_model_json(hf, "no model_type");
  EXPECT_EQ(m["layers"], 32);  // identified from architectures[0] LlamaForCausalLM
  EXPECT_EQ(m["head_dim"], 64);
}

TEST(HfImport, UnsupportedArchitecture) {
  const Diagnostic d = first_error([] { (void)import_file("unsupported_arch.json"); });
  EXPECT_EQ(d.path, "/model/hf_config");
  EXPECT_TRUE(contains(d.message, "\"t5\"")) << d.message;  // model_type t5
  EXPECT_TRUE(contains(d.message, "T5ForConditionalGeneration")) << d.message;
  for (const auto& type : supported_hf_model_types())
    EXPECT_TRUE(contains(d.message, type)) << d.message;
}

// Found by review (2026-11-28): a numeric model_type was reported as model_type "", and two
// known names of different families were read as the model_type's without a word.
TEST(HfImport, IdentifyingKeysOfAnotherTypeOrOfTwoFamiliesAreErrors) {
  json hf = load_hf_config_file(data_path("llama3_8b.json"));
  hf["model_type"] = 0;
  Diagnostic d = first_error([&] { (void)hf_config_to_model_json(hf, "x"); });
  EXPECT_TRUE(contains(d.message, "HF key \"model_type\" must be a string, got integer 0"))
      << d.message;
  hf["model_type"] = "llama";
  hf["architectures"] = 0;
  d = first_error([&] { (void)hf_config_to_model_json(hf, "x"); });
  EXPECT_TRUE(contains(d.message, "\"architectures\" must be an array of strings")) << d.message;
  hf["architectures"] = {"GPT2LMHeadModel"};
  d = first_error([&] { (void)hf_config_to_model_json(hf, "x"); });
  EXPECT_TRUE(contains(d.message, "name different model families")) << d.message;
  hf["architectures"] = {"LlamaForSequenceClassification"};  // not a family's: model_type decides
  EXPECT_EQ(hf_config_to_model_json(hf, "x")["layers"], 32);
  hf["architectures"] = nullptr;  // Hugging Face's "not set" (found by review, 2026-11-28)
  EXPECT_EQ(hf_config_to_model_json(hf, "x")["layers"], 32);
}

TEST(HfImport, MissingKeysAreAllNamed) {
  json hf = load_hf_config_file(data_path("mixtral_8x7b.json"));
  hf.erase("num_hidden_layers");
  hf.erase("num_local_experts");
  try {
    (void)hf_config_to_model_json(hf, "mixtral_8x7b.json");
    FAIL() << "no InputError thrown";
  } catch (const InputError& e) {
    ASSERT_EQ(e.items().size(), 2u);
    EXPECT_EQ(e.items()[0].path, "/model/hf_config");
    EXPECT_TRUE(contains(e.items()[0].message, "num_hidden_layers")) << e.what();
    EXPECT_TRUE(contains(e.items()[1].message, "num_local_experts")) << e.what();
  }
}

TEST(HfImport, WrongTypeNamesKey) {
  json hf = load_hf_config_file(data_path("qwen2_7b.json"));
  hf["hidden_size"] = "3584";
  const Diagnostic d = first_error([&] { (void)hf_config_to_model_json(hf, "qwen2"); });
  EXPECT_TRUE(contains(d.message, "hidden_size")) << d.message;
  EXPECT_TRUE(contains(d.message, "positive integer")) << d.message;
}

TEST(HfImport, NotAnObject) {
  const Diagnostic d = first_error([] { (void)hf_config_to_model_json(json::array(), "x.json"); });
  EXPECT_EQ(d.path, "/model/hf_config");
  EXPECT_TRUE(contains(d.message, "object")) << d.message;
}

TEST(HfImport, MissingFile) {
  const std::string path = data_path("does_not_exist.json");
  const Diagnostic d = first_error([&] { (void)load_hf_config_file(path); });
  EXPECT_EQ(d.path, "/model/hf_config");
  EXPECT_TRUE(contains(d.message, path)) << d.message;
  EXPECT_TRUE(contains(d.message, "not found")) << d.message;
}

TEST(HfImport, MalformedJsonReportsPosition) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("shardsim_hf_malformed_" + std::to_string(std::random_device{}()) + ".json");
  std::ofstream(path) << "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,,\n}\n";
  const Diagnostic d = first_error([&] { (void)load_hf_config_file(path.string()); });
  std::filesystem::remove(path);
  EXPECT_EQ(d.path, "/model/hf_config");
  EXPECT_TRUE(contains(d.message, "not valid JSON")) << d.message;
  EXPECT_TRUE(contains(d.message, "line 3")) << d.message;  // the doubled comma
}

// Issue 11 defect 7: a GPT-2 config with n_embd 4e18 and no n_inner made 4 * n_embd overflow
// (UBSan: signed overflow). Integers above 9e15 are now refused, naming the key; 9e15 itself
// still imports (4 x 9e15 = 3.6e16 fits in int64, max 9.2e18).
TEST(HfImport, HugeIntegerIsRefusedBeforeArithmetic) {
  json hf = load_hf_config_file(data_path("gpt2.json"));
  hf.erase("n_inner");
  hf["n_embd"] = std::int64_t{4'000'000'000'000'000'000};
  const Diagnostic d = first_error([&] { (void)hf_config_to_model_json(hf, "gpt2"); });
  EXPECT_TRUE(contains(d.message, "n_embd")) << d.message;
  EXPECT_TRUE(contains(d.message, "up to 9e15")) << d.message;
  hf["n_embd"] = std::uint64_t{18'446'744'073'709'551'615u};  // parsed as unsigned by nlohmann
  EXPECT_TRUE(
      contains(first_error([&] { (void)hf_config_to_model_json(hf, "gpt2"); }).message, "n_embd"));
  hf["n_embd"] = std::int64_t{9'000'000'000'000'000};
  EXPECT_EQ(hf_config_to_model_json(hf, "gpt2")["ffn_hidden"],
            std::int64_t{36'000'000'000'000'000});
}

}  // namespace
}  // namespace shardsim
