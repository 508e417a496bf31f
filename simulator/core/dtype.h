// Numeric formats of parameters, gradients and activations.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace shardsim {

// kTf32 is a GEMM math format, not a storage precision: fp32 operands multiplied on TF32 tensor
// cores (training.tf32). Scenario precisions are the other four (scenario/sections.cc).
enum class Dtype { kFp32, kFp16, kBf16, kFp8, kTf32 };

// Bytes per element: fp32 (and tf32, stored as fp32) 4, fp16/bf16 2, fp8 1.
[[nodiscard]] constexpr double dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::kFp32:
    case Dtype::kTf32:
      return 4.0;
    case Dtype::kFp16:
    case Dtype::kBf16:
      return 2.0;
    case Dtype::kFp8:
      return 1.0;
  }
  return 4.0;
}

// Bytes per activation element under a training precision: fp32 4; fp16/bf16 2; fp8 training
// keeps its activations in bf16 (Transformer Engine casts GEMM inputs on the fly): 2.
[[nodiscard]] constexpr double activation_bytes(Dtype precision) {
  return precision == Dtype::kFp32 || precision == Dtype::kTf32 ? 4.0 : 2.0;
}

[[nodiscard]] inline std::string dtype_name(Dtype d) {
  switch (d) {
    case Dtype::kFp32:
      return "fp32";
    case Dtype::kFp16:
      return "fp16";
    case Dtype::kBf16:
      return "bf16";
    case Dtype::kFp8:
      return "fp8";
    case Dtype::kTf32:
      return "tf32";
  }
  return "fp32";
}

// Inverse of dtype_name ("fp32", "fp16", "bf16", "fp8", "tf32"); nullopt for any other name.
[[nodiscard]] inline std::optional<Dtype> dtype_from_name(std::string_view name) {
  for (const Dtype d : {Dtype::kFp32, Dtype::kFp16, Dtype::kBf16, Dtype::kFp8, Dtype::kTf32})
    if (dtype_name(d) == name) return d;
  return std::nullopt;
}

}  // namespace shardsim
