// DeepSpeed's closed-form model-state estimators, reproduced as a reference convention
// (deepspeed/runtime/zero/stage_1_and_2.py::estimate_zero2_model_states_mem_needs and
// stage3.py::estimate_zero3_model_states_mem_needs; docs/code-docs/source/memory.rst).
// They count model states only (no activations or buffers) and scale host memory by
// `buffer_factor` (DeepSpeed's additional_buffer_factor, default 1.5). Bytes.
#pragma once

namespace shardsim {

struct DeepSpeedEstimate {
  double gpu_bytes = 0;  // per GPU
  double cpu_bytes = 0;  // per node
};

// ZeRO-2. offload: gpu 2P, cpu P*max(4*gpus, 16)*f; else gpu 4P + 16P/gpus, cpu 4P*gpn*f.
[[nodiscard]] DeepSpeedEstimate deepspeed_zero2_estimate(double params, int gpus_per_node,
                                                         int nodes, bool offload_optimizer,
                                                         double buffer_factor = 1.5);

// ZeRO-3 with LL = largest layer's parameters:
//   offload params+optimizer: gpu 4LL;              cpu (zero_init) 18P/nodes*f
//   offload optimizer:        gpu 4LL + 2P/gpus;    cpu (zero_init) 16P/nodes*f
//   no offload:               gpu 4LL + 18P/gpus;   cpu (zero_init) 4LL*gpn*f
// Without zero_init the cpu side is P*max(4*gpn, 18 or 16 /nodes)*f, or 4P*gpn*f without offload.
[[nodiscard]] DeepSpeedEstimate deepspeed_zero3_estimate(double params, double largest_layer,
                                                         int gpus_per_node, int nodes,
                                                         bool offload_params,
                                                         bool offload_optimizer, bool zero_init,
                                                         double buffer_factor = 1.5);

}  // namespace shardsim
