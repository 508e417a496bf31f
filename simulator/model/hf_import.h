// Import of a Hugging Face `transformers` config.json as the scenario's "model" keys, so a scenario
// can say `"model": {"hf_config": "path/to/config.json"}` instead of spelling out the architecture.
//
// Supported families, identified by "model_type" (fallback: "architectures"[0] when model_type is
// absent or not recognised):
//   llama    (LlamaForCausalLM)     mistral  (MistralForCausalLM)   mixtral (MixtralForCausalLM)
//   qwen2    (Qwen2ForCausalLM)     gpt2     (GPT2LMHeadModel)      gpt_neox (GPTNeoXForCausalLM)
// Anything that does not change parameter or activation counts in shardsim's model (rope_theta,
// rotary_pct, use_parallel_residual, token ids, dtypes...) is ignored, and so are
// keys starting with "_" (annotations such as "_source" or "_name_or_path").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardsim {

// JSON pointer that every import error is reported at.
inline constexpr const char* kHfConfigPointer = "/model/hf_config";

// The accepted "model_type" values, in the order listed above.
[[nodiscard]] std::vector<std::string> supported_hf_model_types();

// Converts a parsed config.json into an object holding only scenario model keys: layers, hidden,
// heads, kv_heads, head_dim (only when the config sets it), ffn_hidden, vocab, ffn_type, norm,
// tied_embeddings, position, max_position (learned positions only), bias, qkv_bias, dropout,
// attention, sliding_window and sliding_window_from_layer (Mistral, Mixtral; Qwen2 with
// use_sliding_window) and, for Mixtral, moe. `source` names the config in messages.
// Throws InputError at kHfConfigPointer when `hf` is not an object, when the architecture is not
// supported (the message names it and the supported list), or when required HF keys are missing or
// not of the expected type (every such key is named, all in one error).
[[nodiscard]] nlohmann::json hf_config_to_model_json(const nlohmann::json& hf,
                                                     const std::string& source);

// Reads and parses a config.json. Throws InputError at kHfConfigPointer when the file is missing,
// is a directory or cannot be read, or is not valid JSON (the message carries the parser's line,
// column and byte offset).
[[nodiscard]] nlohmann::json load_hf_config_file(const std::string& path);

}  // namespace shardsim
