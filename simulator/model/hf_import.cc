#include "simulator/model/hf_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/core/strings.h"
#include "simulator/model/model_config.h"

namespace shardsim {
namespace {

using nlohmann::json;

enum class Family { kLlama, kMistral, kMixtral, kQwen2, kGpt2, kGptNeox };

struct FamilyName {
  std::string_view model_type;
  std::string_view architecture;
  Family family;
};

constexpr std::array<FamilyName, 6> kFamilies = {{
    {"llama", "LlamaForCausalLM", Family::kLlama},
    {"mistral", "MistralForCausalLM", Family::kMistral},
    {"mixtral", "MixtralForCausalLM", Family::kMixtral},
    {"qwen2", "Qwen2ForCausalLM", Family::kQwen2},
    {"gpt2", "GPT2LMHeadModel", Family::kGpt2},
    {"gpt_neox", "GPTNeoXForCausalLM", Family::kGptNeox},
}};

// Typed access to the HF object. Problems (missing keys, wrong types) are collected, so one
// InputError names all of them; getters return a harmless placeholder after an error.
class HfKeys {
 public:
  HfKeys(const json& hf, const std::string& source, std::string_view model_type)
      : hf_(hf), source_(source), model_type_(model_type) {}

  // A required positive integer.
  std::int64_t integer(std::string_view key) {
    const json* v = find(key);
    if (v == nullptr) {
      error(key, fmt::format("is required for model_type \"{}\" but missing", model_type_));
      return 0;
    }
    return positive(key, *v).value_or(0);
  }
  // A positive integer; absent or null -> nullopt.
  std::optional<std::int64_t> optional_integer(std::string_view key) {
    const json* v = find(key);
    return v == nullptr ? std::nullopt : positive(key, *v);
  }
  // A non-negative integer; absent or null -> nullopt.
  std::optional<std::int64_t> optional_count(std::string_view key) {
    const json* v = find(key);
    if (v == nullptr) return std::nullopt;
    if (v->is_number()) {
      const double d = v->get<double>();
      if (d == 0) return 0;
      if (d < 0 || std::trunc(d) != d) {
        type_error(key, "a non-negative integer", *v);
        return std::nullopt;
      }
    }
    return positive(key, *v);
  }
  // The raw value of a key (nullptr: absent or null), for keys with a shape of their own.
  const json* raw(std::string_view key) const { return find(key); }
  // Whether the key is written at all, null included (transformers' defaults apply only to
  // absent keys: an explicit null is "none").
  bool written(std::string_view key) const {
    return !key.empty() && key.front() != '_' && hf_.contains(std::string(key));
  }
  double number_or(std::string_view key, double fallback) {
    const json* v = find(key);
    if (v == nullptr) return fallback;
    if (v->is_number()) return v->get<double>();
    type_error(key, "a number", *v);
    return fallback;
  }
  bool boolean_or(std::string_view key, bool fallback) {
    const json* v = find(key);
    if (v == nullptr) return fallback;
    if (v->is_boolean()) return v->get<bool>();
    type_error(key, "a boolean", *v);
    return fallback;
  }
  void throw_if_any() const { diags_.throw_if_any(); }

 private:
  // Absent and null are the same to HF (`"n_inner": null` means "use the default").
  const json* find(std::string_view key) const {
    if (key.empty() || key.front() == '_') return nullptr;  // annotations are never read
    const auto it = hf_.find(std::string(key));  // string: nlohmann < 3.11 lacks find(string_view)
    return it == hf_.end() || it->is_null() ? nullptr : &*it;
  }
  // Integers, and integral floats such as 4096.0, from 1 to 9e15 (below 2^53, where doubles are
  // exact; and small enough that the importer's own arithmetic, 4 * n_embd for GPT-2's default
  // n_inner, cannot overflow: a 4e18 n_embd was signed overflow, found by UBSan). The scenario's
  // own range checks then refuse what no model has.
  std::optional<std::int64_t> positive(std::string_view key, const json& v) {
    constexpr std::int64_t kMax = 9'000'000'000'000'000;
    if (v.is_number_unsigned() && v.get<std::uint64_t>() >= 1 &&
        v.get<std::uint64_t>() <= std::uint64_t(kMax))
      return std::int64_t(v.get<std::uint64_t>());
    if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() >= 1 &&
        v.get<std::int64_t>() <= kMax)
      return v.get<std::int64_t>();
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (d >= 1 && d <= double(kMax) && std::trunc(d) == d) return static_cast<std::int64_t>(d);
    }
    type_error(key, "a positive integer up to 9e15", v);
    return std::nullopt;
  }

 public:  // for keys whose shape the caller checks itself (Qwen2's layer_types)
  void type_error(std::string_view key, std::string_view expected, const json& got) {
    error(key, fmt::format("must be {}, got {} {}", expected, json_type_name(got), json_text(got)));
  }
  void error(std::string_view key, const std::string& what) {
    diags_.error(kHfConfigPointer, fmt::format("{}: HF key \"{}\" {}", source_, key, what));
  }

 private:
  const json& hf_;
  const std::string& source_;
  std::string_view model_type_;
  Diagnostics diags_;
};

std::string string_at(const json& hf, std::string_view key) {
  const auto it = hf.find(std::string(key));
  return it != hf.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string first_architecture(const json& hf) {
  const auto it = hf.find("architectures");
  if (it == hf.end() || !it->is_array() || it->empty() || !it->front().is_string()) return {};
  return it->front().get<std::string>();
}

[[noreturn]] void throw_unsupported(const std::string& source, const std::string& model_type,
                                    const std::string& architecture) {
  std::vector<std::string> names;
  for (const auto& f : kFamilies)
    names.push_back(fmt::format("{} ({})", f.model_type, f.architecture));
  throw InputError(kHfConfigPointer,
                   fmt::format("{}: unsupported architecture: model_type \"{}\", architectures[0] "
                               "\"{}\"; supported model_type values: {}",
                               source, model_type, architecture, join(names)));
}

// model_type decides; architectures[0] is the fallback when model_type is absent or unknown.
// Both must have their JSON types, and two known names of different families contradict each
// other (found by review, 2026-11-28: a numeric model_type was reported as "", and model_type
// llama with architectures ["GPT2LMHeadModel"] was read as Llama without a word).
const FamilyName& identify(const json& hf, const std::string& source) {
  const auto type_error = [&](const char* key, const char* expected, const json& got) {
    throw InputError(kHfConfigPointer,
                     fmt::format("{}: HF key \"{}\" must be {}, got {} {}", source, key, expected,
                                 json_type_name(got), json_text(got)));
  };
  // null is Hugging Face's "not set": read as absent.
  if (const auto it = hf.find("model_type"); it != hf.end() && !it->is_null() && !it->is_string())
    type_error("model_type", "a string", *it);
  if (const auto it = hf.find("architectures"); it != hf.end() && !it->is_null()) {
    if (!it->is_array()) type_error("architectures", "an array of strings", *it);
    for (const auto& a : *it)
      if (!a.is_string()) type_error("architectures", "an array of strings", *it);
  }
  const std::string model_type = string_at(hf, "model_type");
  const std::string architecture = first_architecture(hf);
  for (const auto& f : kFamilies) {
    if (f.model_type != model_type) continue;
    for (const auto& g : kFamilies)
      if (&g != &f && g.architecture == architecture)
        throw InputError(
            kHfConfigPointer,
            fmt::format("{}: model_type \"{}\" and architectures[0] \"{}\" name "
                        "different model families ({} and {})",
                        source, model_type, architecture, f.architecture, g.architecture));
    return f;
  }
  for (const auto& f : kFamilies)
    if (f.architecture == architecture) return f;
  throw_unsupported(source, model_type, architecture);
}

// The windowed layers of a Qwen2 model that uses its window (nullopt: no layer does).
// transformers' Qwen2Config: layer i slides when i >= max_window_layers (default 28), unless an
// explicit layer_types list ("full_attention" / "sliding_attention" per layer) says otherwise;
// shardsim's model expresses full-attention layers, then windowed ones but for every N-th
// (window_layers_of), so any other order in layer_types is an error naming it.
std::optional<WindowLayers> qwen2_window_layers(HfKeys& k, std::int64_t layers) {
  constexpr std::int64_t kQwen2MaxWindowLayers = 28;  // Qwen2Config's default
  if (layers < 1) return std::nullopt;  // num_hidden_layers is missing or bad: said already
  const json* types = k.raw("layer_types");
  // Read only without layer_types; an explicit null then fails in transformers (i >= None),
  // absent takes the default.
  if (types == nullptr && k.written("max_window_layers") && k.raw("max_window_layers") == nullptr)
    k.error("max_window_layers", "must be a non-negative integer, got null");
  if (types != nullptr) {
    const auto bad = [&](std::string_view what) {
      k.type_error("layer_types", what, *types);
      return std::nullopt;
    };
    if (!types->is_array() || std::int64_t(types->size()) != layers)
      return bad(fmt::format("an array of num_hidden_layers ({}) strings", layers));
    std::vector<bool> windowed;
    for (const json& t : *types) {
      const bool sliding = t == "sliding_attention";
      if (!sliding && t != "full_attention")
        return bad("an array of \"full_attention\" and \"sliding_attention\"");
      windowed.push_back(sliding);
    }
    const auto w = window_layers_of(windowed);
    if (!w)
      return bad(
          "full-attention layers, then sliding-window ones but for every N-th (shardsim's "
          "model.sliding_window_from_layer and sliding_window_full_every); another order is not "
          "modelled");
    if (w->from_layer >= layers) return std::nullopt;
    return w;
  }
  const std::int64_t from = k.optional_count("max_window_layers").value_or(kQwen2MaxWindowLayers);
  if (from >= layers) return std::nullopt;
  return WindowLayers{int(from), 0};
}

// Llama, Mistral, Mixtral and Qwen2: pre-norm RMSNorm decoder, RoPE, gated SiLU MLP (SwiGLU).
json llama_like(HfKeys& k, Family family) {
  json m;
  m["layers"] = k.integer("num_hidden_layers");
  m["hidden"] = k.integer("hidden_size");
  const std::int64_t heads = k.integer("num_attention_heads");
  m["heads"] = heads;
  m["kv_heads"] = k.optional_integer("num_key_value_heads").value_or(heads);  // HF default: MHA
  if (const auto head_dim = k.optional_integer("head_dim")) m["head_dim"] = *head_dim;
  m["ffn_hidden"] = k.integer("intermediate_size");
  m["vocab"] = k.integer("vocab_size");
  m["ffn_type"] = "swiglu";  // the gated MLP has 3 matrices whatever hidden_act is
  m["norm"] = "rmsnorm";
  m["tied_embeddings"] = k.boolean_or("tie_word_embeddings", false);  // default of all four
  m["position"] = "rope";
  // Llama's mlp_bias biases the MLP; attention_bias biases q/k/v (and o_proj, h values a layer,
  // not modelled). Qwen2 always has q/k/v biases and nothing else.
  m["bias"] = k.boolean_or("mlp_bias", false);
  m["qkv_bias"] = family == Family::kQwen2 || k.boolean_or("attention_bias", false);
  m["dropout"] = k.number_or("attention_dropout", 0.0) > 0.0;
  m["attention"] = "standard";
  // Mistral's and Mixtral's sliding_window on every layer; Qwen2's only with use_sliding_window,
  // and then on the layers from max_window_layers on (found by review, 2026-11-29: it was dropped
  // silently). An explicit null is no window; an absent key takes transformers' default:
  // MistralConfig and Qwen2Config 4096, MixtralConfig none.
  if (family != Family::kLlama) {
    constexpr std::int64_t kHfDefaultWindow = 4096;
    const std::optional<std::int64_t> window =
        k.written("sliding_window")  ? k.optional_integer("sliding_window")
        : family == Family::kMixtral ? std::nullopt
                                     : std::optional<std::int64_t>(kHfDefaultWindow);
    if (family != Family::kQwen2) {
      if (window) m["sliding_window"] = *window;
    } else if (k.boolean_or("use_sliding_window", false) && window) {
      if (const auto w = qwen2_window_layers(k, m["layers"].get<std::int64_t>())) {
        m["sliding_window"] = *window;
        if (w->from_layer > 0) m["sliding_window_from_layer"] = w->from_layer;
        if (w->full_every > 0) m["sliding_window_full_every"] = w->full_every;
      }
    }
  }
  if (family == Family::kMixtral) {
    m["moe"] = {{"experts", k.integer("num_local_experts")},
                {"top_k", k.integer("num_experts_per_tok")},
                {"expert_ffn_hidden", m["ffn_hidden"]},  // every layer is MoE: one expert's width
                {"shared_experts", 0},
                {"first_dense_layers", 0}};
  }
  return m;
}

// GPT-2: learned positions, LayerNorm, GeLU MLP, biases everywhere, tied output layer.
json gpt2(HfKeys& k) {
  json m;
  m["layers"] = k.integer("n_layer");
  const std::int64_t hidden = k.integer("n_embd");
  m["hidden"] = hidden;
  m["heads"] = k.integer("n_head");
  m["ffn_hidden"] = k.optional_integer("n_inner").value_or(4 * hidden);  // null -> 4h
  m["vocab"] = k.integer("vocab_size");
  m["ffn_type"] = "gelu";
  m["norm"] = "layernorm";
  m["tied_embeddings"] = k.boolean_or("tie_word_embeddings", true);
  m["position"] = "learned";
  m["max_position"] = k.integer("n_positions");
  m["bias"] = true;
  m["qkv_bias"] = false;  // implied by bias
  // GPT2Config defaults each dropout probability to 0.1.
  const double p = std::max({k.number_or("resid_pdrop", 0.1), k.number_or("embd_pdrop", 0.1),
                             k.number_or("attn_pdrop", 0.1)});
  m["dropout"] = p > 0.0;
  m["attention"] = "standard";
  return m;
}

// GPT-NeoX / Pythia: rotary (partial, rotary_pct: no parameters), LayerNorm, GeLU MLP, biased
// linear layers, untied embed_out. use_parallel_residual changes neither parameters nor memory.
json gpt_neox(HfKeys& k) {
  json m;
  m["layers"] = k.integer("num_hidden_layers");
  m["hidden"] = k.integer("hidden_size");
  m["heads"] = k.integer("num_attention_heads");
  m["ffn_hidden"] = k.integer("intermediate_size");
  m["vocab"] = k.integer("vocab_size");
  m["ffn_type"] = "gelu";
  m["norm"] = "layernorm";
  m["tied_embeddings"] = k.boolean_or("tie_word_embeddings", false);
  m["position"] = "rope";
  m["bias"] = true;
  m["qkv_bias"] = false;  // implied by bias
  // Newer configs say attention_dropout/hidden_dropout, older ones *_prob; all default to 0.
  const double p = std::max(
      {k.number_or("attention_dropout", 0.0), k.number_or("hidden_dropout", 0.0),
       k.number_or("attention_probs_dropout_prob", 0.0), k.number_or("hidden_dropout_prob", 0.0)});
  m["dropout"] = p > 0.0;
  m["attention"] = "standard";
  return m;
}

json convert(HfKeys& k, Family family) {
  switch (family) {
    case Family::kGpt2:
      return gpt2(k);
    case Family::kGptNeox:
      return gpt_neox(k);
    default:
      return llama_like(k, family);
  }
}

}  // namespace

std::vector<std::string> supported_hf_model_types() {
  std::vector<std::string> out;
  for (const auto& f : kFamilies) out.emplace_back(f.model_type);
  return out;
}

json hf_config_to_model_json(const json& hf, const std::string& source) {
  if (!hf.is_object()) {
    throw InputError(kHfConfigPointer, fmt::format("{}: a Hugging Face config must be a JSON "
                                                   "object, got {}",
                                                   source, json_type_name(hf)));
  }
  const FamilyName& family = identify(hf, source);
  HfKeys keys(hf, source, family.model_type);
  json model = convert(keys, family.family);
  keys.throw_if_any();
  return model;
}

json load_hf_config_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw InputError(kHfConfigPointer, fmt::format("Hugging Face config \"{}\" not found", path));
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(kHfConfigPointer,
                     fmt::format("Hugging Face config \"{}\" is a directory; give the path of its "
                                 "config.json",
                                 path));
  }
  return parse_json_text(read_text_file(path, kMaxJsonFileBytes, kHfConfigPointer),
                         "Hugging Face config \"" + path + "\"", kHfConfigPointer);
}

}  // namespace shardsim
