// Context parallelism's checks (validate_detail.h): what Megatron-LM and Transformer Engine
// require of the sequence, the attention and the heads for each parallel.cp_comm_type.
#include <fmt/format.h>

#include <cstdint>

#include "simulator/scenario/validate_detail.h"

namespace shardsim::validate_detail {

void check_context_parallel(const Scenario& s, StrategyCheck& c) {
  const auto& p = s.strategy;
  if (p.cp <= 1) return;
  Diagnostics& d = c.errors;
  const auto& t = s.training;
  const auto& m = s.model;
  // Megatron splits each sequence into 2*cp chunks for causal load balance (every exchange).
  if (t.seq_len % (2 * std::int64_t(p.cp)) != 0)
    d.error("/training/seq_len",
            fmt::format("training.seq_len ({}) must be divisible by 2*parallel.cp ({})", t.seq_len,
                        2 * std::int64_t(p.cp)));
  // Megatron-LM's context parallelism runs inside Transformer Engine's flash or fused attention;
  // its unfused attention refuses it (megatron/core/transformer/dot_product_attention.py:
  // "Context parallelism is only supported by TEDotProductAttention!"). Found by review,
  // 2026-11-28: cp 2 without flash attention ran with no cp_comm at all.
  if (!t.flash_attention)
    d.error("/parallel/cp",
            fmt::format("context parallelism (cp = {}) needs training.flash_attention: it runs "
                        "inside Transformer Engine's flash or fused attention, and Megatron-LM's "
                        "unfused attention refuses it",
                        p.cp));
  // Transformer Engine refuses a sliding window on the ring (attn_forward_func_with_cp: "Context
  // parallelism does not support sliding window attention with cp_comm_type='p2p'"), whatever
  // the window's length: a layer with a window needs all_gather or a2a.
  if (p.cp_comm == CpComm::kP2p && m.sliding_window > 0) {
    int windowed = -1;
    for (int l = 0; l < m.layers && windowed < 0; ++l)
      if (m.is_windowed_layer(l)) windowed = l;
    if (windowed >= 0)
      d.error("/parallel/cp_comm_type",
              fmt::format("context parallelism (cp = {}) by \"p2p\" (parallel.cp_comm_type; "
                          "\"p2p\" is its default) takes no sliding window in Transformer "
                          "Engine, and layer {} has one (model.sliding_window = {}): set "
                          "\"all_gather\" or \"a2a\"",
                          p.cp, windowed, m.sliding_window));
  }
  // The all-to-all gives each rank heads / cp of this TP rank's query and key-value heads
  // (Transformer Engine's AttnFuncWithCPAndQKVOA2A: "cp_comm_type='a2a' requires num_heads %
  // cp_size == 0 for Q, K, V"). Heads not divisible by TP are refused elsewhere.
  if (p.cp_comm == CpComm::kA2a && m.heads % p.tp == 0) {
    const int kv = m.attention == AttentionType::kMla ? m.heads : m.effective_kv_heads();
    for (const auto& [key, heads] : {std::pair{"model.heads", m.heads}, {"model.kv_heads", kv}})
      if (heads % p.tp == 0 && (heads / p.tp) % p.cp != 0) {
        d.error("/parallel/cp_comm_type",
                fmt::format("parallel.cp_comm_type \"a2a\" splits each tensor-parallel rank's "
                            "heads over the {} context-parallel ranks: {} / parallel.tp = {} / {} "
                            "= {} is not divisible by parallel.cp ({}); use \"p2p\" or "
                            "\"all_gather\"",
                            p.cp, key, heads, p.tp, heads / p.tp, p.cp));
        break;
      }
  }
}

}  // namespace shardsim::validate_detail
