// Classes of memory-bound kernels. The op list (model/ops.h) tags each memory-bound op with one,
// a hardware profile may carry a measured efficiency table per class
// (ComputeModel::memory_bound_points[].kernel), and the calibration kernels
// (kernels/common/memory_ops.h) measure them under the same names. Kernels of one class do the
// same arithmetic per byte, so they share a curve: on GPUs softmax and GeLU run below a plain
// copy's bandwidth, on CPUs exp/tanh make them compute-bound.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace shardsim {

enum class MemoryKernel : std::uint8_t {
  kAny,  // no class of its own (embedding gather, rotary, router): the profile's generic curve
  kLayernorm,
  kRmsnorm,
  kSoftmax,  // also cross-entropy (a softmax over the vocabulary)
  kGelu,
  kSwiglu,
  kDropoutResidual,  // dropout + residual add, or the residual add alone
  kAdam,             // the optimizer step
};

// Names as they appear in profiles and calibration samples; kAny is "".
inline constexpr std::array<std::string_view, 8> kMemoryKernelNames = {
    "", "layernorm", "rmsnorm", "softmax", "gelu", "swiglu", "dropout_residual", "adam"};

[[nodiscard]] constexpr std::string_view memory_kernel_name(MemoryKernel k) {
  return kMemoryKernelNames[static_cast<std::size_t>(k)];
}

[[nodiscard]] constexpr std::optional<MemoryKernel> memory_kernel_from_name(std::string_view n) {
  for (std::size_t i = 0; i < kMemoryKernelNames.size(); ++i)
    if (kMemoryKernelNames[i] == n) return static_cast<MemoryKernel>(i);
  return std::nullopt;
}

}  // namespace shardsim
