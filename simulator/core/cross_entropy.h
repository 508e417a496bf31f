// How a training stack computes the language-model loss, a softmax cross-entropy over the
// vocabulary: the bytes its kernels move per logit element. The logits of one micro-batch are
// tokens x vocabulary (split over TP), so at a large vocabulary this memory-bound work is a few
// per cent of a small model's step; the op list (model/ops.h) has one "cross_entropy" op and the
// cost model (cost/compute.h) streams these bytes, those of kernels that evaluate an exponential
// at the profile's softmax bandwidth and the rest at its generic one. The implementation also
// decides what the loss keeps for backward (model/ops.h output_ops).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
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

[[nodiscard]] constexpr std::string_view cross_entropy_name(CrossEntropyKernel k) {
  const auto i = static_cast<std::size_t>(k);
  return i < kCrossEntropyNames.size() ? kCrossEntropyNames[i] : "streaming";
}

// Bytes moved per logit element and pass, split by whether the kernel evaluates an exponential
// (costed on the profile's softmax curve) or only streams (its generic curve). a = bytes of one
// logit as the output GEMM writes it: 2 for fp16/bf16 (and fp8 training, whose output layer runs in
// bf16), 4 for fp32.
struct CrossEntropyBytes {
  double forward_exp = 0, forward_other = 0, backward_exp = 0, backward_other = 0;
  [[nodiscard]] constexpr double forward() const { return forward_exp + forward_other; }
  [[nodiscard]] constexpr double backward() const { return backward_exp + backward_other; }
};

[[nodiscard]] constexpr CrossEntropyBytes cross_entropy_bytes(CrossEntropyKernel k, double a) {
  // The fp32 upcast of 16-bit logits: read a, write 4 (forward); its backward casts the fp32
  // gradient back: read 4, write a. With fp32 logits .float() is a no-op and neither runs.
  const double upcast = a < 4 ? a + 4 : 0;
  switch (k) {
    case CrossEntropyKernel::kVocabParallel:
      // forward: exp in place (4 + 4) evaluates the exponential; .float() (a + 4), max over the
      // vocabulary (read 4), subtract the max in place (4 + 4), sum (read 4) and divide by the
      // sum in place (4 + 4; the softmax kept for backward) only stream: upcast + 24. Backward:
      // grad.mul_(grad_output) in place (4 + 4) and the cast back to the logits' dtype: 8 +
      // upcast. 38 + 14 B in all for 16-bit logits. The target gather and its update touch one
      // element per token, not per logit.
      return {8, upcast + 24, 0, 8 + upcast};
    case CrossEntropyKernel::kFused:
      // forward: one kernel reads each row twice (the max, then the sum of exponentials) and
      // writes a loss and a log-sum-exp per row; backward: one kernel reads the logits, evaluates
      // exp(logit - lse) and writes the gradient. 4 + 4 B for 16-bit logits.
      return {2 * a, 0, 2 * a, 0};
    case CrossEntropyKernel::kStreaming:
      // the generic streaming op of cost/compute.cc: read + write on the softmax curve, backward
      // twice that on the generic one (a softmax's backward evaluates no exponential).
      return {2 * a, 0, 0, 4 * a};
  }
  return {2 * a, 0, 0, 4 * a};
}

}  // namespace shardsim
