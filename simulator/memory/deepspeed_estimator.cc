#include "simulator/memory/deepspeed_estimator.h"

#include <algorithm>

namespace shardsim {

DeepSpeedEstimate deepspeed_zero2_estimate(double params, int gpus_per_node, int nodes,
                                           bool offload_optimizer, double buffer_factor) {
  const double gpus = double(gpus_per_node) * nodes;
  if (offload_optimizer) return {2 * params, params * std::max(4 * gpus, 16.0) * buffer_factor};
  return {4 * params + 16 * params / gpus, params * 4 * gpus_per_node * buffer_factor};
}

DeepSpeedEstimate deepspeed_zero3_estimate(double params, double largest_layer, int gpus_per_node,
                                           int nodes, bool offload_params, bool offload_optimizer,
                                           bool zero_init, double buffer_factor) {
  const double gpus = double(gpus_per_node) * nodes;
  const double largest_layer_memory = 4 * largest_layer;  // fp16 params + grads of one layer
  const double gpn = gpus_per_node;
  if (offload_params && offload_optimizer) {
    const double cpu = zero_init ? params * 18 / nodes : params * std::max(4 * gpn, 18.0 / nodes);
    return {largest_layer_memory, cpu * buffer_factor};
  }
  if (offload_optimizer) {
    const double cpu = zero_init ? params * 16 / nodes : params * std::max(4 * gpn, 16.0 / nodes);
    return {largest_layer_memory + 2 * params / gpus, cpu * buffer_factor};
  }
  const double cpu = zero_init ? largest_layer * 4 * gpn : params * 4 * gpn;
  return {largest_layer_memory + 18 * params / gpus, cpu * buffer_factor};
}

}  // namespace shardsim
