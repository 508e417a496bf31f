#include "simulator/model/params.h"

#include <algorithm>
#include <cmath>

namespace shardsim {
namespace {

double norm_params(const ModelConfig& m, double width) {
  return m.norm == NormType::kLayerNorm ? 2 * width : width;  // gamma (+ beta)
}

// Names of one MLP's parameter groups (dense, routed experts, shared experts).
struct MlpParamNames {
  std::string_view fc1_weight, fc2_weight, fc1_bias, fc2_bias;
};
constexpr MlpParamNames kDenseMlp = {"mlp.fc1.weight", "mlp.fc2.weight", "mlp.fc1.bias",
                                     "mlp.fc2.bias"};
constexpr MlpParamNames kExpertMlp = {"moe.experts.fc1.weight", "moe.experts.fc2.weight",
                                      "moe.experts.fc1.bias", "moe.experts.fc2.bias"};
constexpr MlpParamNames kSharedMlp = {"moe.shared_experts.fc1.weight",
                                      "moe.shared_experts.fc2.weight",
                                      "moe.shared_experts.fc1.bias", "moe.shared_experts.fc2.bias"};

// fc1 (+gate) and fc2 weights and biases of one MLP of width f.
void add_mlp_params(const ModelConfig& m, std::vector<ParamGroup>& g, const MlpParamNames& names,
                    double f, ParamShard shard, double copies) {
  const double h = double(m.hidden);
  const double fc1_out = m.ffn_type == FfnType::kSwiglu ? 2 * f : f;
  g.push_back({names.fc1_weight, copies * h * fc1_out, shard, true});
  g.push_back({names.fc2_weight, copies * f * h, shard, true});
  if (m.bias) {
    g.push_back({names.fc1_bias, copies * fc1_out, shard, false});
    // Row-parallel bias: replicated over TP (experts keep theirs with the expert).
    g.push_back({names.fc2_bias, copies * h,
                 shard == ParamShard::kExpert ? shard : ParamShard::kReplicated, false});
  }
}

void add_standard_attention_params(const ModelConfig& m, std::vector<ParamGroup>& g) {
  const double h = double(m.hidden), d = double(m.effective_head_dim());
  const double qkv = (m.heads + 2.0 * m.effective_kv_heads()) * d;
  g.push_back({"attention.qkv.weight", h * qkv, ParamShard::kTensor, true});
  if (m.bias || m.qkv_bias) g.push_back({"attention.qkv.bias", qkv, ParamShard::kTensor, false});
  g.push_back({"attention.out.weight", m.heads * d * h, ParamShard::kTensor, true});
  if (m.bias) g.push_back({"attention.out.bias", h, ParamShard::kReplicated, false});
}

void add_mla_params(const ModelConfig& m, std::vector<ParamGroup>& g) {
  const double h = double(m.hidden), a = m.heads;
  const MlaConfig& c = m.mla;
  const double dqk = double(c.qk_nope_head_dim + c.qk_rope_head_dim);
  const double r_q = double(c.q_lora_rank), r_kv = double(c.kv_lora_rank);
  if (c.q_lora_rank > 0) {
    g.push_back({"attention.q_down.weight", h * r_q, ParamShard::kReplicated, true});
    g.push_back({"attention.q_norm", norm_params(m, r_q), ParamShard::kReplicated, false});
    g.push_back({"attention.q_up.weight", r_q * a * dqk, ParamShard::kTensor, true});
  } else {
    g.push_back({"attention.q.weight", h * a * dqk, ParamShard::kTensor, true});
  }
  g.push_back({"attention.kv_down.weight", h * (r_kv + double(c.qk_rope_head_dim)),
               ParamShard::kReplicated, true});
  g.push_back({"attention.kv_norm", norm_params(m, r_kv), ParamShard::kReplicated, false});
  g.push_back({"attention.kv_up.weight", r_kv * a * double(c.qk_nope_head_dim + c.v_head_dim),
               ParamShard::kTensor, true});
  g.push_back({"attention.out.weight", a * double(c.v_head_dim) * h, ParamShard::kTensor, true});
}

// The parameters of the largest single module a group stands for, as DeepSpeed's model_to_params
// sees a Hugging Face model: one expert of a routed group; with SwiGLU (the Llama-family layout),
// the gate or the up projection of the fused fc1, and the query projection of the fused QKV
// (q_proj, k_proj and v_proj are separate modules there; GPT-2 and GPT-NeoX fuse them).
double largest_module(const ModelConfig& m, const ParamGroup& p) {
  double n = p.shard == ParamShard::kExpert ? p.count / m.moe.experts : p.count;
  if (m.ffn_type == FfnType::kSwiglu) {
    if (p.name.ends_with("fc1.weight") || p.name.ends_with("fc1.bias")) n /= 2;
    if (p.name.starts_with("attention.qkv."))
      n *= double(m.heads) / (m.heads + 2.0 * m.effective_kv_heads());
  }
  return n;
}

}  // namespace

double padded_vocab(std::int64_t vocab, int tp, int multiple) {
  const double unit = double(multiple) * tp;
  return std::ceil(double(vocab) / unit) * unit;
}

std::vector<ParamGroup> layer_params(const ModelConfig& m, int layer) {
  const double h = double(m.hidden);
  std::vector<ParamGroup> g;
  g.reserve(16);
  g.push_back({"attention_norm", norm_params(m, h), ParamShard::kReplicated, false});
  if (m.attention == AttentionType::kMla)
    add_mla_params(m, g);
  else
    add_standard_attention_params(m, g);
  g.push_back({"mlp_norm", norm_params(m, h), ParamShard::kReplicated, false});
  if (!m.is_moe_layer(layer)) {
    add_mlp_params(m, g, kDenseMlp, double(m.effective_ffn_hidden()), ParamShard::kTensor, 1);
    return g;
  }
  // Outside Transformer Engine (ops.h Op::outside_fp8): no FP8 copy of the router's weight.
  g.push_back({"moe.router.weight", h * m.moe.experts, ParamShard::kReplicated, false});
  add_mlp_params(m, g, kExpertMlp, double(m.moe.expert_ffn_hidden), ParamShard::kExpert,
                 m.moe.experts);
  if (m.moe.shared_experts > 0) {
    add_mlp_params(m, g, kSharedMlp, double(m.moe.shared_experts) * double(m.moe.expert_ffn_hidden),
                   ParamShard::kTensor, 1);
  }
  return g;
}

std::vector<ParamGroup> embedding_params(const ModelConfig& m, double vocab, std::int64_t seq_len) {
  std::vector<ParamGroup> g = {
      {"embedding.word", vocab * double(m.hidden), ParamShard::kTensor, false}};
  if (m.position == PositionType::kLearned) {
    const double rows = double(m.max_position > 0 ? m.max_position : seq_len);
    g.push_back({"embedding.position", rows * double(m.hidden), ParamShard::kReplicated, false});
  }
  return g;
}

std::vector<ParamGroup> output_params(const ModelConfig& m, double vocab, bool with_projection) {
  std::vector<ParamGroup> g = {
      {"final_norm", norm_params(m, double(m.hidden)), ParamShard::kReplicated, false}};
  if (with_projection)
    // Outside Transformer Engine (ops.h Op::outside_fp8): no FP8 copy of the output weight.
    g.push_back({"output.weight", vocab * double(m.hidden), ParamShard::kTensor, false});
  return g;
}

double sum_params(const std::vector<ParamGroup>& groups) {
  double total = 0;
  for (const auto& p : groups) total += p.count;
  return total;
}

ParamTotals count_parameters(const ModelConfig& m, std::int64_t seq_len) {
  ParamTotals t;
  const double vocab = double(m.vocab);
  const auto embedding = embedding_params(m, vocab, seq_len);
  const double embed = sum_params(embedding);
  const auto out = output_params(m, vocab, !m.tied_embeddings);
  for (const auto& groups : {embedding, out})
    for (const auto& p : groups) t.largest_layer = std::max(t.largest_layer, p.count);
  t.embedding = embed + (m.tied_embeddings ? 0 : vocab * double(m.hidden));
  t.total = embed + sum_params(out);
  t.active = t.total;
  // Blocks of one kind (dense, MoE) hold the same groups; a sliding window changes none.
  std::vector<ParamGroup> kind[2];
  for (int l = 0; l < m.layers; ++l) {
    auto& groups = kind[m.is_moe_layer(l) ? 1 : 0];
    if (groups.empty()) groups = layer_params(m, l);
    t.total += sum_params(groups);
    for (const auto& p : groups) {
      const bool routed = p.shard == ParamShard::kExpert;
      t.active += routed ? p.count * m.moe.top_k / m.moe.experts : p.count;
      t.largest_layer = std::max(t.largest_layer, largest_module(m, p));
    }
  }
  return t;
}

}  // namespace shardsim
