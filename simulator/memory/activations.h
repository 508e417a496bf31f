// Activation bytes saved for the backward pass, summed from the op list (model/ops.h) under a
// tensor-parallel degree, sequence parallelism, a recomputation mode and a precision.
// For a GPT layer with dropout and no flash attention this reproduces Korthikanti et al. 2022
// (arXiv 2205.05198) Table 2: s*b*h*(34 + 5as/h) with no parallelism, (10 + 24/t + 5as/(ht)) with
// TP, /t with TP+SP, the 5as/h term dropped under selective recomputation, 2sbh under full.
#pragma once

#include <vector>

#include "simulator/core/dtype.h"
#include "simulator/model/ops.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

struct ActivationOptions {
  int tp = 1;
  bool sp = false;
  Recompute recompute = Recompute::kNone;
  Dtype precision = Dtype::kBf16;
};

// Bytes per element of a saved tensor of this kind under `precision`.
[[nodiscard]] double saved_bytes_per_element(ActKind kind, Dtype precision);

// Bytes one TP rank keeps for `ops` (one micro-batch), honouring selective recomputation.
[[nodiscard]] double saved_bytes(const std::vector<Op>& ops, const ActivationOptions& o);

// One transformer block: as saved_bytes, except that full recomputation keeps only the block's
// input (s*b*h activations; split over TP under sequence parallelism).
[[nodiscard]] double layer_activation_bytes(const std::vector<Op>& ops, double tokens,
                                            double hidden, const ActivationOptions& o);

}  // namespace shardsim
