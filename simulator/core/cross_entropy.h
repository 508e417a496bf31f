// How a training stack computes the language-model loss, a softmax cross-entropy over the
// vocabulary: the bytes its kernels move per logit element. The logits of one micro-batch are
// tokens x vocabulary (split over TP), so at a large vocabulary this memory-bound work is a few
// per cent of a small model's step; the op list (model/ops.h) has one "cross_entropy" op and the
// cost model (cost/compute.h) streams these bytes at the profile's softmax bandwidth.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace shardsim {

enum class CrossEntropyKernel : std::uint8_t {
  // Megatron's vocabulary-parallel cross-entropy (megatron/core/tensor_parallel/cross_entropy.py,
  // unfused; the same passes in Megatron-LM since 2020 and Megatron-DeepSpeed): fp32 logits and
  // one PyTorch kernel per step, below.
  kVocabParallel,
  // Fused kernels that read the logits in their own dtype: flash-attn's CrossEntropyLoss, which
  // llm-foundry's default loss_fn "fused_crossentropy" loads (flash-attn 1.0's xentropy_cuda_lib,
  // the apex softmax cross-entropy kernels).
  kFused,
  // effects.cross_entropy_traffic off: the generic streaming op (read + write forward, twice that
  // backward, in the activation dtype).
  kStreaming,
};

// Scenario names (training.cross_entropy); kStreaming is not selectable, only switched to.
inline constexpr std::array<std::string_view, 2> kCrossEntropyNames = {"vocab-parallel", "fused"};

[[nodiscard]] constexpr std::optional<CrossEntropyKernel> cross_entropy_from_name(
    std::string_view n) {
  for (std::size_t i = 0; i < kCrossEntropyNames.size(); ++i)
    if (kCrossEntropyNames[i] == n) return static_cast<CrossEntropyKernel>(i);
  return std::nullopt;
}

// Bytes moved per logit element (a = bytes of one logit as the output GEMM writes it: 2 for
// fp16/bf16, 4 for fp32; fp8 GEMMs write bf16).
struct CrossEntropyBytes {
  double forward = 0, backward = 0;
};

[[nodiscard]] constexpr CrossEntropyBytes cross_entropy_bytes(CrossEntropyKernel k, double a) {
  // The fp32 upcast of 16-bit logits: read a, write 4 (forward); its backward casts the fp32
  // gradient back: read 4, write a. With fp32 logits .float() is a no-op and neither runs.
  const double upcast = a < 4 ? a + 4 : 0;
  switch (k) {
    case CrossEntropyKernel::kVocabParallel:
      // forward: .float() (a + 4), max over the vocabulary (read 4), subtract the max in place
      // (4 + 4), exp in place (4 + 4), sum (read 4), divide by the sum in place (4 + 4; the
      // softmax kept for backward): upcast + 32. Backward: grad.mul_(grad_output) in place
      // (4 + 4), then the cast back to the logits' dtype: 8 + upcast. The target gather and its
      // update touch one element per token, not per logit.
      return {upcast + 32, 8 + upcast};
    case CrossEntropyKernel::kFused:
      // forward: one kernel reads each row twice (the max, then the sum of exponentials) and
      // writes a loss and a log-sum-exp per row; backward: one kernel reads the logits and writes
      // their gradient.
      return {2 * a, 2 * a};
    case CrossEntropyKernel::kStreaming:
      // the generic streaming op of cost/compute.cc: read + write, backward twice that.
      return {2 * a, 4 * a};
  }
  return {2 * a, 4 * a};
}

}  // namespace shardsim
