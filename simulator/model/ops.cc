#include "simulator/model/ops.h"

#include <algorithm>
#include <cmath>

namespace shardsim {
namespace {

// Shorthands for building saved-tensor lists.
SavedTensor seq(std::string_view name, double elements, ActKind kind = ActKind::kActivation) {
  return {name, elements, kind, ActShard::kSequence, false};
}
SavedTensor tensor(std::string_view name, double elements, ActKind kind = ActKind::kActivation) {
  return {name, elements, kind, ActShard::kTensor, false};
}
SavedTensor core(std::string_view name, double elements, ActKind kind = ActKind::kActivation) {
  return {name, elements, kind, ActShard::kTensor, true};
}

Op gemm(std::string_view name, double m, double n, double k, TpSplit split, SavedTensors saves) {
  Op op{name, OpKind::kGemm, m, n, k, 1, 0, split, std::move(saves)};
  return op;
}

Op memop(std::string_view name, OpKind kind, double elements, TpSplit split, SavedTensors saves) {
  return Op{name, kind, 0, 0, 0, 1, elements, split, std::move(saves)};
}

// Dropout after a block (Korthikanti's 1-byte mask of s*b*h), used on the embedding output.
void add_dropout(const ModelConfig& m, std::vector<Op>& ops, std::string_view name, double tokens) {
  if (!m.dropout) return;
  const double n = tokens * double(m.hidden);
  ops.push_back(memop(name, OpKind::kDropout, n, TpSplit::kSequence,
                      {seq("dropout_mask", n, ActKind::kMask)}));
}

// The end of a block: dropout and the residual add, one fused kernel as in Megatron-LM
// (bias-dropout-add) reading two s*b*h tensors and writing one. Memory-bound ops move `elements`
// in and as many out, so 1.5 x s*b*h stands for the three tensors; only the mask is saved.
void add_dropout_residual(const ModelConfig& m, std::vector<Op>& ops, std::string_view dropout,
                          std::string_view residual, double tokens) {
  const double n = tokens * double(m.hidden);
  if (!m.dropout) {
    ops.push_back(memop(residual, OpKind::kElementwise, 1.5 * n, TpSplit::kSequence, {}));
    return;
  }
  ops.push_back(memop(dropout, OpKind::kDropout, 1.5 * n, TpSplit::kSequence,
                      {seq("dropout_mask", n, ActKind::kMask)}));
}

// Keys of a layer's attention: `timed`, the count fused attention is timed at (the busiest
// context-parallel rank's window share where the kernel takes the window, else the whole
// sequence); `model`, the count its model FLOPs take (the window's even share on a windowed
// layer, whatever the kernel; else the whole sequence); `executed`, the count whose half the
// average rank executes (the even share where the kernel takes the window, else `timed`). The
// unfused chain computes and masks every score, whatever the window.
struct AttentionKeys {
  double timed = 0, model = 0, executed = 0;
};

// The attention core for q/k width dqk and v width dv per head: either fused (flash) or the
// unfused chain Q.K^T -> softmax -> dropout -> P.V of Korthikanti et al. (their 5as^2b term).
// Under context parallelism by all-to-all (s.cp_heads > 1) each rank's core takes every query of
// heads / cp heads: the same element counts and FLOPs as seq_local queries of every head, in the
// kernel's own shape, and one more saved output (below).
void add_attention_core(const ModelConfig& m, const OpShape& s, double dqk, double dv,
                        AttentionKeys keys, std::vector<Op>& ops) {
  const double t = s.seq_local * s.micro_batch;
  const double a = m.heads;
  const double kv = m.attention == AttentionType::kMla ? a : m.effective_kv_heads();
  const double q_el = t * a * dqk, k_el = t * kv * dqk, v_el = t * kv * dv;
  const double queries = s.seq_local * s.cp_heads, heads = a / s.cp_heads;
  if (s.flash_attention) {
    Op op = memop("flash_attention", OpKind::kFlashAttention, q_el + k_el + v_el, TpSplit::kHeads,
                  {tensor("q", q_el), tensor("k", k_el), tensor("v", v_el),
                   tensor("softmax_lse", t * a, ActKind::kFp32)});
    op.m = queries;  // per head: [queries x dqk] . [dqk x s_full], then . [s_full x dv]
    op.n = keys.timed;
    op.k = dqk;
    op.value_dim = dv;
    op.batch = heads * s.micro_batch;
    // Transformer Engine's all-to-all keeps the attention's output before the all-to-all back
    // (out_part, in AttnFuncWithCPAndQKVOA2A's saved tensors) beside the one it returns, which
    // the output projection keeps: one more output-sized tensor, recomputed under selective
    // recomputation with the rest of the core.
    if (s.cp_heads > 1) op.saves.push_back(core("attention_output_a2a", t * a * dv));
    op.model_flops_scale = keys.model / keys.timed;
    op.executed_flops_scale = keys.executed / keys.timed;
    ops.push_back(std::move(op));
    return;
  }
  const double scores = a * s.seq_local * s.seq_full * s.micro_batch;
  Op qk{"attention_scores",
        OpKind::kAttentionScore,
        queries,
        s.seq_full,
        dqk,
        heads * s.micro_batch,
        0,
        TpSplit::kHeads,
        {tensor("q", q_el), tensor("k", k_el)}};
  qk.model_flops_scale = keys.model / s.seq_full;
  ops.push_back(std::move(qk));
  ops.push_back(memop("softmax", OpKind::kSoftmax, scores, TpSplit::kHeads,
                      {core("softmax_output", scores)}));
  if (m.dropout) {
    ops.push_back(memop("attention_dropout", OpKind::kDropout, scores, TpSplit::kHeads,
                        {core("attention_dropout_mask", scores, ActKind::kMask),
                         core("attention_dropout_output", scores)}));
  }
  Op pv{"attention_values", OpKind::kAttentionValue, queries, dv,
        s.seq_full,         heads * s.micro_batch,   0,       TpSplit::kHeads,
        {tensor("v", v_el)}};
  pv.model_flops_scale = keys.model / s.seq_full;
  ops.push_back(std::move(pv));
}

void add_standard_attention(const ModelConfig& m, const OpShape& s, AttentionKeys keys,
                            std::vector<Op>& ops) {
  const double t = s.seq_local * s.micro_batch;
  const double h = double(m.hidden), d = double(m.effective_head_dim());
  const double qkv_out = (m.heads + 2.0 * m.effective_kv_heads()) * d;
  ops.push_back(gemm("qkv_projection", t, qkv_out, h, TpSplit::kColumn,
                     {seq("qkv_input", t * h, ActKind::kGemmInput)}));
  if (m.position == PositionType::kRope) {
    // Rotary embedding of queries and keys: a streaming kernel, nothing extra saved.
    ops.push_back(memop("rotary", OpKind::kElementwise,
                        t * (m.heads + double(m.effective_kv_heads())) * d, TpSplit::kHeads, {}));
  }
  add_attention_core(m, s, d, d, keys, ops);
  const double ctx = m.heads * d;
  ops.push_back(gemm("attention_output_projection", t, h, ctx, TpSplit::kRow,
                     {tensor("context", t * ctx, ActKind::kGemmInput)}));
}

// DeepSeek multi-head latent attention: low-rank down projections (replicated over TP, like
// Megatron-Core) followed by per-head up projections (split over heads).
void add_mla_attention(const ModelConfig& m, const OpShape& s, AttentionKeys keys,
                       std::vector<Op>& ops) {
  const double t = s.seq_local * s.micro_batch;
  const double h = double(m.hidden), a = m.heads;
  const MlaConfig& c = m.mla;
  const double dqk = double(c.qk_nope_head_dim + c.qk_rope_head_dim);
  const double kv_down = double(c.kv_lora_rank + c.qk_rope_head_dim);
  double q_in = h;
  SavedTensors input_saves = {seq("attention_input", t * h, ActKind::kGemmInput)};
  if (c.q_lora_rank > 0) {
    q_in = double(c.q_lora_rank);
    ops.push_back(gemm("q_down_projection", t, q_in, h, TpSplit::kNone, input_saves));
    input_saves.clear();  // kv_down reads the same saved input
    ops.push_back(memop("q_norm", OpKind::kNorm, t * q_in, TpSplit::kSequence,
                        {seq("q_norm_input", t * q_in)}));
  }
  ops.push_back(gemm("q_up_projection", t, a * dqk, q_in, TpSplit::kColumn,
                     {seq("q_up_input", t * q_in, ActKind::kGemmInput)}));
  ops.push_back(gemm("kv_down_projection", t, kv_down, h, TpSplit::kNone, input_saves));
  const double r = double(c.kv_lora_rank);
  ops.push_back(
      memop("kv_norm", OpKind::kNorm, t * r, TpSplit::kSequence, {seq("kv_norm_input", t * r)}));
  ops.push_back(gemm("kv_up_projection", t, a * double(c.qk_nope_head_dim + c.v_head_dim), r,
                     TpSplit::kColumn, {seq("kv_up_input", t * r, ActKind::kGemmInput)}));
  add_attention_core(m, s, dqk, double(c.v_head_dim), keys, ops);
  const double ctx = a * double(c.v_head_dim);
  ops.push_back(gemm("attention_output_projection", t, h, ctx, TpSplit::kRow,
                     {tensor("context", t * ctx, ActKind::kGemmInput)}));
}

// Names of one MLP's ops and tensors (dense, routed experts, shared experts).
struct MlpNames {
  std::string_view fc1_input, fc1, gelu, swiglu, activation_input, fc2_input, fc2;
};
constexpr MlpNames kDenseMlp = {"fc1_input",        "fc1",       "gelu", "swiglu",
                                "activation_input", "fc2_input", "fc2"};
constexpr MlpNames kExpertMlp = {
    "expert_fc1_input",        "expert_fc1",       "expert_gelu", "expert_swiglu",
    "expert_activation_input", "expert_fc2_input", "expert_fc2"};
constexpr MlpNames kSharedMlp = {"shared_expert_fc1_input",
                                 "shared_expert_fc1",
                                 "shared_expert_gelu",
                                 "shared_expert_swiglu",
                                 "shared_expert_activation_input",
                                 "shared_expert_fc2_input",
                                 "shared_expert_fc2"};

// fc1 -> activation -> fc2 for `tokens` rows of width f. `input_saved` is false when the input
// tensor is already saved by an earlier op (MoE experts and shared experts read saved inputs).
void add_mlp(const ModelConfig& m, std::vector<Op>& ops, const MlpNames& names, double tokens,
             double f, OpKind gemm_kind, bool input_saved) {
  const double h = double(m.hidden);
  const bool swiglu = m.ffn_type == FfnType::kSwiglu;
  const double fc1_out = swiglu ? 2 * f : f;
  SavedTensors in;
  if (input_saved) in.push_back(seq(names.fc1_input, tokens * h, ActKind::kGemmInput));
  Op fc1 = gemm(names.fc1, tokens, fc1_out, h, TpSplit::kColumn, std::move(in));
  fc1.kind = gemm_kind;
  ops.push_back(std::move(fc1));
  // GeLU keeps its input (s*b*f); SwiGLU keeps the gate and up halves (2*s*b*f).
  ops.push_back(memop(swiglu ? names.swiglu : names.gelu, OpKind::kActivationFn, tokens * fc1_out,
                      TpSplit::kColumn, {tensor(names.activation_input, tokens * fc1_out)}));
  Op fc2 = gemm(names.fc2, tokens, h, f, TpSplit::kRow,
                {tensor(names.fc2_input, tokens * f, ActKind::kGemmInput)});
  fc2.kind = gemm_kind;
  ops.push_back(std::move(fc2));
}

void add_moe(const ModelConfig& m, const OpShape& s, std::vector<Op>& ops) {
  const double t = s.seq_local * s.micro_batch;
  const double h = double(m.hidden), e = m.moe.experts, k = m.moe.top_k;
  const double routed = t * k;  // token-expert pairs
  // The router reads the normed hidden state (saved once; shared experts reuse it).
  // It runs outside FP8 (Op::outside_fp8), so its input is kept in 16 bits under FP8 training.
  Op router = gemm("router", t, e, h, TpSplit::kNone,
                   {seq("router_input", t * h, ActKind::kActivation),
                    seq("router_probabilities", t * e, ActKind::kFp32)});
  router.outside_fp8 = true;
  ops.push_back(std::move(router));
  ops.push_back(memop("router_topk", OpKind::kRouter, t * e, TpSplit::kNone, {}));
  // Dispatched tokens are the experts' fc1 input; expert outputs are kept for the combine. Under
  // TP the tokens are gathered over the TP group first (Megatron-Core), so every TP rank holds
  // all of them: neither TP nor SP splits these tensors.
  ops.push_back(
      memop("dispatch", OpKind::kRouter, routed * h, TpSplit::kNone,
            {{"expert_fc1_input", routed * h, ActKind::kGemmInput, ActShard::kReplicated, false}}));
  add_mlp(m, ops, kExpertMlp, routed, double(m.moe.expert_ffn_hidden), OpKind::kExpertGemm, false);
  ops.push_back(
      memop("combine", OpKind::kRouter, routed * h, TpSplit::kNone,
            {{"expert_output", routed * h, ActKind::kActivation, ActShard::kReplicated, false}}));
  if (m.moe.shared_experts > 0) {
    const double f = double(m.moe.shared_experts) * double(m.moe.expert_ffn_hidden);
    add_mlp(m, ops, kSharedMlp, t, f, OpKind::kGemm, false);
    // They read router_input, kept in 16 bits for the router; under fp8 their first GEMM, a
    // Transformer Engine layer, keeps its own 1-byte copy too (found by review, 2026-11-29).
    for (Op& op : ops)
      if (op.name == kSharedMlp.fc1)
        op.saves.push_back(seq("shared_expert_fc1_input_fp8", t * h, ActKind::kFp8Copy));
  }
}

// The memory-bound kernel class of each op (core/memory_kernel.h): norms by the model's norm,
// the activation by its FFN type, softmax and the cross-entropy (a softmax over the vocabulary)
// as softmax, dropout and residual adds as dropout_residual; embedding, rotary and router ops have
// no class of their own.
MemoryKernel kernel_of(const ModelConfig& m, const Op& op) {
  switch (op.kind) {
    case OpKind::kNorm:
      return m.norm == NormType::kRmsNorm ? MemoryKernel::kRmsnorm : MemoryKernel::kLayernorm;
    case OpKind::kSoftmax:
    case OpKind::kLoss:
      return MemoryKernel::kSoftmax;
    case OpKind::kActivationFn:
      return m.ffn_type == FfnType::kSwiglu ? MemoryKernel::kSwiglu : MemoryKernel::kGelu;
    case OpKind::kDropout:
      return MemoryKernel::kDropoutResidual;
    case OpKind::kElementwise:
      return op.name == "rotary" ? MemoryKernel::kAny : MemoryKernel::kDropoutResidual;
    default:
      return MemoryKernel::kAny;
  }
}

std::vector<Op> tag_kernels(const ModelConfig& m, std::vector<Op> ops) {
  for (Op& op : ops) op.kernel = kernel_of(m, op);
  return ops;
}

}  // namespace

double attention_window(const ModelConfig& m, std::int64_t seq_len, bool flash,
                        std::string_view attention_kernel) {
  const bool skips = flash && attention_kernel != "flash-attention-triton";
  return skips && m.sliding_window > 0 && m.sliding_window < seq_len ? double(m.sliding_window)
                                                                     : 0.0;
}

double windowed_attention_keys(double seq, double seq_local, double window) {
  if (window <= 0 || window >= seq || seq_local <= 0) return seq;
  const double w = window;
  const int cp = std::max(1, int(std::lround(seq / seq_local)));
  const double c = seq / (2.0 * cp);
  // integral of min(x, w) over [a, b)
  const auto pairs = [&](double a, double b) {
    if (b <= w) return (b * b - a * a) / 2;
    if (a >= w) return w * (b - a);
    return (w * w - a * a) / 2 + w * (b - w);
  };
  double busiest = 0;
  for (int r = 0; r < cp; ++r)
    busiest = std::max(busiest,
                       pairs(r * c, (r + 1) * c) + pairs((2 * cp - 1 - r) * c, (2 * cp - r) * c));
  return 2 * busiest / seq_local;
}

int block_kind(const ModelConfig& m, int layer, const OpShape& s) {
  const bool windowed = m.is_windowed_layer(layer) && double(m.sliding_window) < s.seq_full;
  return (m.is_moe_layer(layer) ? 1 : 0) | (windowed ? 2 : 0);
}

std::vector<Op> layer_ops(const ModelConfig& m, int layer, const OpShape& s) {
  const double t = s.seq_local * s.micro_batch;
  const double h = double(m.hidden);
  std::vector<Op> ops;
  ops.reserve(32);
  // Pre-norm block: norm keeps its input (Korthikanti's 2sbh per LayerNorm).
  ops.push_back(memop("attention_norm", OpKind::kNorm, t * h, TpSplit::kSequence,
                      {seq("attention_norm_input", t * h)}));
  AttentionKeys keys{s.seq_full, s.seq_full, s.seq_full};
  if (block_kind(m, layer, s) & 2) {
    keys.model = windowed_attention_keys(s.seq_full, s.seq_full, double(m.sliding_window));
    if (s.window > 0) {  // a rank of the all-to-all holds the whole sequence: no busiest chunk
      keys.timed = windowed_attention_keys(s.seq_full, s.seq_local * s.cp_heads, s.window);
      keys.executed = keys.model;
    }
  }
  if (m.attention == AttentionType::kMla)
    add_mla_attention(m, s, keys, ops);
  else
    add_standard_attention(m, s, keys, ops);
  add_dropout_residual(m, ops, "attention_dropout_out", "attention_residual", t);
  ops.push_back(
      memop("mlp_norm", OpKind::kNorm, t * h, TpSplit::kSequence, {seq("mlp_norm_input", t * h)}));
  if (m.is_moe_layer(layer))
    add_moe(m, s, ops);
  else
    add_mlp(m, ops, kDenseMlp, t, double(m.effective_ffn_hidden()), OpKind::kGemm, true);
  add_dropout_residual(m, ops, "mlp_dropout_out", "mlp_residual", t);
  return tag_kernels(m, std::move(ops));
}

std::vector<Op> embedding_ops(const ModelConfig& m, double padded_vocab, const OpShape& s) {
  const double t = s.seq_local * s.micro_batch;
  std::vector<Op> ops;
  // Token ids stay resident until the embedding backward (Megatron counts 8*s*b bytes).
  Op lookup = memop("embedding", OpKind::kEmbedding, t * double(m.hidden), TpSplit::kRow,
                    {{"token_ids", t, ActKind::kInt64, ActShard::kReplicated, false}});
  // The table: n rows of k = hidden; TpSplit::kRow divides k, so a rank's n x k is its
  // vocabulary-parallel share (V / TP rows), which the backward's zero fill writes
  // (cost/compute.cc).
  lookup.n = padded_vocab;
  lookup.k = double(m.hidden);
  ops.push_back(std::move(lookup));
  add_dropout(m, ops, "embedding_dropout", t);
  return tag_kernels(m, std::move(ops));
}

std::vector<Op> output_ops(const ModelConfig& m, double padded_vocab, const OpShape& s) {
  const double t = s.seq_local * s.micro_batch;
  const double h = double(m.hidden);
  std::vector<Op> ops;
  ops.push_back(memop("final_norm", OpKind::kNorm, t * h, TpSplit::kSequence,
                      {seq("final_norm_input", t * h)}));
  // Outside FP8 (Op::outside_fp8): its input is kept in 16 bits under FP8 training.
  Op projection = gemm("output_projection", t, padded_vocab, h, TpSplit::kColumn,
                       {seq("output_projection_input", t * h, ActKind::kActivation)});
  projection.outside_fp8 = true;
  ops.push_back(std::move(projection));
  // Vocabulary-parallel cross-entropy keeps fp32 logits (Korthikanti's 4*s*b*V term); a fused
  // loss keeps the output projection's logits in the activation dtype (core/cross_entropy.h).
  const bool fp32_copy = s.cross_entropy != CrossEntropyKernel::kFused;
  ops.push_back(memop("cross_entropy", OpKind::kLoss, t * padded_vocab, TpSplit::kColumn,
                      {fp32_copy ? tensor("logits_fp32", t * padded_vocab, ActKind::kFp32)
                                 : tensor("logits", t * padded_vocab, ActKind::kActivation)}));
  return tag_kernels(m, std::move(ops));
}

}  // namespace shardsim
