// The transformer's architecture, as read from a scenario's "model" section (after a preset or a
// Hugging Face config.json has been merged in). Plain data; defaults documented per field.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "simulator/core/diagnostics.h"

namespace shardsim {

enum class FfnType { kGelu, kSwiglu };  // gelu: fc1 h->f, fc2 f->h; swiglu: gate+up h->2f
enum class NormType { kLayerNorm, kRmsNorm };
enum class PositionType { kLearned, kRope };
enum class AttentionType { kStandard, kMla };  // standard covers MHA, GQA and MQA (kv_heads)

// Mixture of experts (DESIGN.md model.moe). experts == 0 means a dense model.
struct MoeConfig {
  int experts = 0;                     // routed experts per MoE layer
  int top_k = 0;                       // experts each token is routed to
  std::int64_t expert_ffn_hidden = 0;  // hidden size of one expert's MLP
  int shared_experts = 0;              // always-active experts, each of expert_ffn_hidden
  int first_dense_layers = 0;          // leading layers with a dense MLP (DeepSeek-V3: 3)
  [[nodiscard]] bool enabled() const { return experts > 0; }
  bool operator==(const MoeConfig&) const = default;
};

// Multi-head latent attention (DeepSeek-V2/V3). Used when attention == kMla.
struct MlaConfig {
  std::int64_t q_lora_rank = 0;  // 0: queries are not compressed
  std::int64_t kv_lora_rank = 512;
  std::int64_t qk_nope_head_dim = 128;
  std::int64_t qk_rope_head_dim = 64;
  std::int64_t v_head_dim = 128;
  bool operator==(const MlaConfig&) const = default;
};

struct ModelConfig {
  std::string name;                   // preset name or "custom"
  int layers = 0;                     // transformer blocks (required)
  std::int64_t hidden = 0;            // model width h (required)
  int heads = 0;                      // attention heads a (required)
  int kv_heads = 0;                   // key/value heads; 0 -> heads (MHA)
  std::int64_t head_dim = 0;          // 0 -> hidden / heads
  std::int64_t ffn_hidden = 0;        // MLP width f; 0 -> 4 * hidden
  std::int64_t vocab = 0;             // vocabulary size before padding (required)
  FfnType ffn_type = FfnType::kGelu;  // default gelu
  NormType norm = NormType::kLayerNorm;
  bool tied_embeddings = false;  // output layer shares the word embedding
  PositionType position = PositionType::kLearned;
  std::int64_t max_position = 0;  // learned position table rows; 0 -> training.seq_len
  bool bias = false;              // biases on every linear layer (GPT-2/Megatron GPT: true)
  bool qkv_bias = false;          // bias on the QKV projection only (Qwen2); implied by bias
  bool dropout = false;           // dropout layers present (1-byte masks are stored)
  // Keys each query attends to under sliding-window attention (Mistral 7B v0.1: 4096); 0: none.
  // Fused (flash) attention executes only the window's score tiles (model/ops.h
  // attention_window, windowed_attention_keys); unfused attention computes every score and masks
  // them, so the window saves it nothing. Saved activations and parameters do not depend on it.
  std::int64_t sliding_window = 0;
  // The first layer (0-based) that uses the window; the layers before it attend to the whole
  // sequence (Qwen2's max_window_layers). 0: every layer (Mistral, Mixtral).
  int sliding_window_from_layer = 0;
  // Every this-many-th layer (1-based: layers N, 2N, ...) attends to the whole sequence, the
  // others to the window (Megatron's --window-attn-skip-freq N; Gemma 3's sliding_window_pattern
  // 6, Gemma 2's and GPT-OSS's alternation 2). 0: none.
  int sliding_window_full_every = 0;
  AttentionType attention = AttentionType::kStandard;
  MlaConfig mla;
  MoeConfig moe;

  [[nodiscard]] int effective_kv_heads() const { return kv_heads > 0 ? kv_heads : heads; }
  [[nodiscard]] std::int64_t effective_head_dim() const {
    return head_dim > 0 ? head_dim : (heads > 0 ? hidden / heads : 0);
  }
  // Elements per token of the attention's Q, K, V and output over all heads, as attention
  // consumes them (after the projections and positions): MLA's K carries its positional part per
  // head as Q does, its V and output the value width.
  struct AttentionWidths {
    double q = 0, k = 0, v = 0, out = 0;
  };
  [[nodiscard]] AttentionWidths attention_widths() const {
    if (attention == AttentionType::kMla) {
      const double qk = double(heads) * double(mla.qk_nope_head_dim + mla.qk_rope_head_dim);
      const double v = double(heads) * double(mla.v_head_dim);
      return {qk, qk, v, v};
    }
    const double d = double(effective_head_dim());
    const double kv = double(effective_kv_heads()) * d;
    return {double(heads) * d, kv, kv, double(heads) * d};
  }
  [[nodiscard]] std::int64_t effective_ffn_hidden() const {
    return ffn_hidden > 0 ? ffn_hidden : 4 * hidden;
  }
  // MoE layers are those at index >= first_dense_layers when moe.enabled().
  [[nodiscard]] bool is_moe_layer(int layer) const {
    return moe.enabled() && layer >= moe.first_dense_layers;
  }
  // Windowed layers, when sliding_window > 0: those at index >= sliding_window_from_layer, but
  // not every sliding_window_full_every-th (index + 1 a multiple of it).
  [[nodiscard]] bool is_windowed_layer(int layer) const {
    const int every = sliding_window_full_every;
    return sliding_window > 0 && layer >= sliding_window_from_layer &&
           !(every > 0 && (layer + 1) % every == 0);
  }
  bool operator==(const ModelConfig&) const = default;
};

// The sliding_window_from_layer and sliding_window_full_every that window exactly the layers
// flagged true (index = layer), if any pair does: false up to the first true, then from there on
// false exactly at the multiples of full_every (1-based). Importers map per-layer lists
// (Megatron's --window-attn-skip-freq pattern, Hugging Face layer_types) with it. No true at
// all gives from_layer = size().
struct WindowLayers {
  int from_layer = 0;
  int full_every = 0;
};
[[nodiscard]] std::optional<WindowLayers> window_layers_of(const std::vector<bool>& windowed);

// Reads the keys of a "model" object (no "preset"/"hf_config": those are resolved before, by
// merging JSON). Fields absent keep the values already in `out`. Problems go to `diags`.
void read_model_config(const nlohmann::json& j, const std::string& path, Diagnostics& diags,
                       ModelConfig& out);

// The resolved model as JSON, in the same keys read_model_config accepts.
[[nodiscard]] nlohmann::json to_json(const ModelConfig& m);

}  // namespace shardsim
