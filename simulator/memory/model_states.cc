#include "simulator/memory/model_states.h"

namespace shardsim {

StateBytesPerParam state_bytes_per_param(Dtype precision, GradDtype grad_dtype, Optimizer optimizer,
                                         bool gemm_weight) {
  const bool sgd = optimizer == Optimizer::kSgd;
  StateBytesPerParam b;
  if (precision == Dtype::kFp32) {
    b.params = 4;
    b.grads = 4;
    b.optimizer = sgd ? 4 : 8;  // momentum, or Adam's two moments; no separate master copy
    return b;
  }
  b.params = 2;  // fp16/bf16 working weights (fp8 training keeps them in bf16 as well)
  if (precision == Dtype::kFp8 && gemm_weight) b.params += 2;  // FP8 weight + transpose cache
  b.grads = grad_dtype == GradDtype::kFp32 ? 4 : 2;
  b.optimizer = 4 + (sgd ? 4 : 8);  // FP32 master + moments
  return b;
}

ModelStateBytes zero_sharded_states(double count, const StateBytesPerParam& b, int zero_stage,
                                    double shards) {
  ModelStateBytes s;
  const ZeroTraits& z = zero_traits(zero_stage);
  s.params = count * b.params / (z.shards_params ? shards : 1.0);
  s.grads = count * b.grads / (z.shards_grads ? shards : 1.0);
  s.optimizer = count * b.optimizer / (z.shards_optimizer ? shards : 1.0);
  return s;
}

}  // namespace shardsim
