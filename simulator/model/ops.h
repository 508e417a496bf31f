// The per-layer operation list of a transformer: every GEMM with its shape, every memory-bound op,
// and the tensors each op saves for its backward pass. Memory (activations) and cost (time) are
// both derived from this one list, so GQA, SwiGLU, RMSNorm, MoE, MLA and flash attention are
// handled in one place. Shapes are per micro-batch and unsharded; how tensor parallelism splits
// each op is stated by `split` (ops) and `shard` (saved tensors).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>

#include <string_view>
#include <vector>

#include "simulator/core/cross_entropy.h"
#include "simulator/core/memory_kernel.h"
#include "simulator/model/model_config.h"

namespace shardsim {

// How a saved tensor is split across the tensor-parallel group.
enum class ActShard {
  kReplicated,  // a full copy on every TP rank, also under sequence parallelism (token ids)
  kSequence,    // hidden-width tensors at the TP boundary: replicated under TP, split under SP
  kTensor,      // split over heads / FFN width / vocabulary by TP
};

// The storage format of a saved tensor; bytes per element depend on the training precision.
enum class ActKind {
  kActivation,  // activation dtype: 4 B (fp32) or 2 B (fp16/bf16, and fp8 training)
  kGemmInput,   // a GEMM operand kept for the weight gradient: as kActivation, 1 B under fp8
  kMask,        // dropout mask, 1 B
  kFp32,        // statistics kept in fp32 (softmax LSE, router probabilities, fp32 logits)
  kInt64,       // token ids
  kFp8Copy,     // an FP8 layer's own 1-byte copy of an input another op keeps in 16 bits (fp8
                // training only; 0 B otherwise)
};

// Names are string literals (static storage), so op lists are cheap to build.
struct SavedTensor {
  std::string_view name;
  double elements = 0;  // per micro-batch, unsharded
  ActKind kind = ActKind::kActivation;
  ActShard shard = ActShard::kSequence;
  bool attention_core = false;  // dropped (recomputed) under selective recomputation
};

// The tensors one op saves, held in place (no allocation): at most five (flash attention keeps
// q, k, v and the softmax statistics, and under the all-to-all its own output too).
class SavedTensors {
 public:
  static constexpr std::size_t kCapacity = 5;
  SavedTensors() = default;
  SavedTensors(std::initializer_list<SavedTensor> items) {
    for (const auto& t : items) push_back(t);
  }
  // Throws std::length_error beyond kCapacity (an op list bug).
  void push_back(const SavedTensor& t) {
    if (count_ == kCapacity) throw std::length_error("an op saves more than five tensors");
    items_[count_++] = t;
  }
  void clear() { count_ = 0; }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] bool empty() const { return count_ == 0; }
  [[nodiscard]] const SavedTensor& operator[](std::size_t i) const { return items_[i]; }
  [[nodiscard]] const SavedTensor* begin() const { return items_.data(); }
  [[nodiscard]] const SavedTensor* end() const { return items_.data() + count_; }

 private:
  std::array<SavedTensor, kCapacity> items_{};
  std::size_t count_ = 0;
};

enum class OpKind {
  kGemm,            // dense matmul [m x k] x [k x n]
  kExpertGemm,      // grouped expert matmul; m = routed tokens over all experts
  kAttentionScore,  // batched Q.K^T, batch = heads
  kAttentionValue,  // batched P.V, batch = heads
  kFlashAttention,  // fused attention (scores never stored)
  kSoftmax,
  kNorm,
  kActivationFn,  // GeLU / SwiGLU
  kDropout,
  kRouter,  // MoE router softmax / top-k
  kEmbedding,
  kLoss,         // cross-entropy over the vocabulary
  kElementwise,  // residual adds, rotary embedding
};

// The three kinds of work of a training step: forward, backward-input (B) and backward-weight (W)
// (Qi et al. split the backward pass in two; other schedules run W inside B). Shared by the cost
// models (cost/compute.h) and the schedule programs (plan/schedule.h).
enum class Pass : std::uint8_t { kForward, kBackwardInput, kBackwardWeight };

// How tensor parallelism splits an op's work.
enum class TpSplit { kNone, kColumn, kRow, kHeads, kSequence };

struct Op {
  std::string_view name;
  OpKind kind = OpKind::kGemm;
  double m = 0, n = 0, k = 0;  // GEMM shape (tokens x out x in); for bmm per batch entry
  double batch = 1;            // batched GEMMs: number of independent products
  double elements = 0;         // memory-bound ops: elements touched (input size)
  TpSplit split = TpSplit::kNone;
  SavedTensors saves;
  MemoryKernel kernel = MemoryKernel::kAny;  // memory-bound ops: their kernel class (ops.cc)
  double value_dim = 0;  // fused attention: the value head width when it is not k (MLA); 0 = k
  // A GEMM that FP8 training runs in 16 bits: Megatron-Core's output layer (its own
  // ColumnParallelLinear) and MoE router (a plain linear), which sit outside Transformer Engine's
  // FP8 layers; Transformer Engine's guide keeps the first and last layers in higher precision.
  bool outside_fp8 = false;
  // Attention under a sliding window (ops.cc add_attention_core): the ratio of the FLOPs the
  // model counts to the op's own (the window's even share of keys over the keys the op is timed
  // at: the busiest context-parallel rank's, or every key where the kernel takes no window), and
  // of the FLOPs the average rank executes to the op's (the even share over the busiest rank's).
  double model_flops_scale = 1;
  double executed_flops_scale = 1;
};

// Token geometry of one micro-batch on one context-parallel rank.
struct OpShape {
  double seq_local = 0;  // sequence length on this CP rank (seq_len / cp)
  double seq_full = 0;   // whole sequence (attention keys)
  double micro_batch = 1;
  bool flash_attention = false;
  // The loss's implementation decides what the output layer keeps for backward: Megatron's
  // vocabulary-parallel loss its fp32 copy of the logits, a fused kernel the logits themselves.
  CrossEntropyKernel cross_entropy = CrossEntropyKernel::kVocabParallel;
  // The sliding window that fused attention on the model's windowed layers skips tiles by
  // (attention_window); 0: every layer attends to the whole sequence.
  double window = 0;
  // Context parallelism by all-to-all (parallel.cp_comm_type a2a): the attention core of each
  // rank takes the whole sequence for heads / cp_heads heads; 1: its own seq_local queries for
  // every head (the ring and the all-gather).
  double cp_heads = 1;
};

// The window a run's fused attention skips tiles by: model.sliding_window where it is shorter
// than the sequence and the attention is fused by a kernel that takes a window (FlashAttention-2
// from v2.3, FlashAttention-3, cuDNN and Transformer Engine's fused attention do; the 2023
// Triton kernel, `flash-attention-triton`, has no window argument and masks a window within the
// causal half's tiles, all of which it computes); else 0. Unfused attention computes every score
// and masks them.
[[nodiscard]] double attention_window(const ModelConfig& m, std::int64_t seq_len, bool flash,
                                      std::string_view attention_kernel);

// The key count that fused attention under a causal mask and a sliding window of `window` keys
// (0: none) is counted at on the busiest context-parallel rank (its op's n): the count a plain
// causal mask over that many keys would have, so the kernel executes half of it per query, as
// under the causal mask. `seq` is the whole sequence, `seq_local` this rank's share (seq / cp).
//   A query at position x attends to min(x, window) keys, in the continuous form the causal mask
//   already uses (s^2 / 2 pairs for s^2 counted). Context parallelism cuts the sequence into
//   2 cp chunks of c = seq / (2 cp) and gives rank r chunks r and 2 cp - 1 - r (Megatron's
//   causal load balance); chunk [a, a + c) holds integral_a^{a+c} min(x, w) dx pairs. Without a
//   window both chunks of every rank sum to seq * c pairs; with one, the ranks of the later
//   chunks hold more, and the step waits for the busiest:
//   counted = 2 * max_r pairs(r) / seq_local.
//   cp = 1: pairs = window * seq - window^2 / 2, counted = 2 * window - window^2 / seq;
//   window >= seq (or 0) leaves seq, the causal count. Mistral 7B at seq 32768, window 4096:
//   2 * 4096 - 4096^2 / 32768 = 7680 keys counted, 3840 executed per query.
[[nodiscard]] double windowed_attention_keys(double seq, double seq_local, double window);

// The kind of block a layer is for costing; blocks of one kind have the same ops. Bit 0: an MoE
// block (else dense); bit 1: a layer whose window is shorter than the sequence (its model FLOPs
// count the window whatever the kernel; its time too where s.window > 0), else attention over
// the whole sequence.
inline constexpr int kBlockKinds = 4;
[[nodiscard]] int block_kind(const ModelConfig& m, int layer, const OpShape& s);

// Ops of transformer block `layer` (0-based), in forward order. A windowed layer's flash attention
// is counted at windowed_attention_keys (ModelConfig::is_windowed_layer, s.window).
[[nodiscard]] std::vector<Op> layer_ops(const ModelConfig& m, int layer, const OpShape& s);
// Input embedding (first pipeline stage).
[[nodiscard]] std::vector<Op> embedding_ops(const ModelConfig& m, double padded_vocab,
                                            const OpShape& s);
// Final norm, output projection (logits) and cross-entropy loss (last pipeline stage). The loss
// keeps fp32 logits (Korthikanti's 4sbV term) under Megatron's vocabulary-parallel loss, the
// output projection's own logits under a fused one (s.cross_entropy).
[[nodiscard]] std::vector<Op> output_ops(const ModelConfig& m, double padded_vocab,
                                         const OpShape& s);

}  // namespace shardsim
