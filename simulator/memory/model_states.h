// Bytes of parameters, gradients and optimizer states: the ZeRO paper's accounting
// (Rajbhandari et al., SC'20, §3.1 and §5) generalised to every precision and optimizer.
#pragma once

#include "simulator/scenario/scenario.h"

namespace shardsim {

// Bytes per parameter before any sharding.
struct StateBytesPerParam {
  double params = 0;     // the working copy the GEMMs read (fp8: + FP8 weight and transpose)
  double grads = 0;      // the gradient buffer
  double optimizer = 0;  // FP32 master copy (mixed precision) + optimizer moments
};

// fp32:           params 4, grads 4, Adam m+v 8 (SGD momentum 4)
// fp16/bf16:      params 2, grads 2 (4 with grad_dtype fp32), master 4 + Adam m+v 8 = 12 (K = 12;
//                 SGD: master 4 + momentum 4 = 8)
// fp8:            as bf16, plus (for matmul weights only, `gemm_weight`) Transformer Engine's
// cached
//                 FP8 copy and its transpose: +2 bytes on params.
[[nodiscard]] StateBytesPerParam state_bytes_per_param(Dtype precision, GradDtype grad_dtype,
                                                       Optimizer optimizer, bool gemm_weight);

struct ModelStateBytes {
  double params = 0, grads = 0, optimizer = 0;
  [[nodiscard]] double total() const { return params + grads + optimizer; }
};

// ZeRO sharding of `count` parameters over `shards` data-parallel ranks: stage 1 shards the
// optimizer states, stage 2 also the gradients, stage 3 also the parameters.
//   stage 0: (P + G + K) * n        stage 1: (P + G) * n + K * n / N
//   stage 2: P * n + (G + K) * n / N  stage 3: (P + G + K) * n / N
[[nodiscard]] ModelStateBytes zero_sharded_states(double count, const StateBytesPerParam& b,
                                                  int zero_stage, double shards);

}  // namespace shardsim
