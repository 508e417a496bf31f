// A resolved, validated scenario: the model, the training set-up, the parallel strategy, the
// cluster and the memory-overhead terms. Built by load_scenario() (load.h); plain data after that.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "simulator/core/cross_entropy.h"
#include "simulator/core/dtype.h"
#include "simulator/hardware/hardware.h"
#include "simulator/model/model_config.h"
#include "simulator/scenario/strategy.h"

namespace shardsim {

enum class GradDtype { kSame, kFp32 };
enum class Optimizer { kAdam, kAdamW, kSgd };

// When gradient clipping multiplies the gradients by max_norm / norm (training.grad_clip_scaling):
// Megatron's clip_grad_norm_fp32 only when the norm exceeds the limit; PyTorch's
// torch.nn.utils.clip_grad_norm_ (and FSDP's) every step, by min(1, max_norm / norm).
enum class GradClipScaling { kWhenClipped, kAlways };

// Where an unfused gradient accumulation (grad_accumulation_fusion false) converts a 16-bit
// gradient to an FP32 buffer's dtype (training.grad_accumulation_cast): in the add itself
// (PyTorch's mixed-dtype main_grad.add_(grad), Megatron's hook) or in a copy kernel of its own
// that the add then reads (DeepSpeed's BF16 optimizer, hp_grad.add_(lp.grad.to(fp32))).
enum class GradAccumulationCast { kInAdd, kSeparate };

// What an unfused gradient accumulation (grad_accumulation_fusion false) adds into
// (training.grad_accumulation_target): a gradient buffer kept across steps and zeroed at each,
// which every micro-batch's gradient is added into (Megatron's main_grad, DeepSpeed's, a script's
// hook into its own buffer), or PyTorch autograd's .grad, which the optimizer's zero_grad sets to
// None: the first micro-batch's gradient is assigned to it and each later one added in place
// (Megatron-LM of 2021 without contiguous buffers, plain PyTorch with no_sync).
enum class GradAccumulationTarget { kMainGrad, kParamGrad };

struct TrainingConfig {
  std::int64_t seq_len = 0;        // tokens per sequence (required)
  std::int64_t global_batch = 0;   // sequences per optimizer step (required)
  std::int64_t micro_batch = 1;    // sequences per micro-batch per data-parallel rank
  Dtype precision = Dtype::kBf16;  // fp32, or fp16/bf16/fp8 mixed precision
  bool tf32 = true;  // fp32 precision: GEMMs on TF32 tensor cores (false: FP32 CUDA-core GEMMs)
  GradDtype grad_dtype = GradDtype::kSame;  // kFp32 keeps FP32 main gradients (Megatron)
  // The weight-gradient GEMM accumulates into the gradient buffer (Megatron's
  // --gradient-accumulation-fusion, true; the other parameters' gradients are still added by
  // Megatron's hook, with ZeRO 0/1) or writes a gradient in the parameters' dtype that a kernel of
  // its own then adds into the buffer (false: --no-gradient-accumulation-fusion, PyTorch's
  // gradient hooks; cost/grad_accumulation.cc).
  bool grad_accumulation_fusion = true;
  GradAccumulationCast grad_accumulation_cast = GradAccumulationCast::kInAdd;
  GradAccumulationTarget grad_accumulation_target = GradAccumulationTarget::kMainGrad;
  GradClipScaling grad_clip_scaling = GradClipScaling::kWhenClipped;
  Optimizer optimizer = Optimizer::kAdamW;
  bool flash_attention = true;  // fused attention: no s^2 score tensors are stored
  // The fused-attention implementation: selects the profile's measured attention_points of that
  // kernel (simulator/cost/compute.h); a kernel the profile has not measured falls back to the
  // score GEMM's efficiency.
  std::string attention_kernel = "flash-attention-2";
  // How the loss over the vocabulary is computed (core/cross_entropy.h): Megatron's
  // vocabulary-parallel fp32 passes, or one fused kernel per pass.
  CrossEntropyKernel cross_entropy = CrossEntropyKernel::kVocabParallel;
};

struct ClusterConfig {
  GpuProfile gpu;
  int gpus_per_node = 0;  // 0 -> the GPU preset's node size
  int nodes = 0;          // 0 -> derived from parallel.dp, or 1
  NetworkConfig network;
  // Host memory of one node for offloaded states, bytes (cluster.host_memory_bytes); 0: not
  // given, so not checked.
  double host_memory_bytes = 0;
  [[nodiscard]] std::int64_t gpus() const { return std::int64_t(gpus_per_node) * nodes; }
};

// Runtime memory overheads: named, documented, configurable ("overheads" section).
struct OverheadConfig {
  double cuda_context_bytes = 512.0 * 1048576;           // CUDA context + loaded kernels
  double nccl_bytes_per_communicator = 128.0 * 1048576;  // NCCL channel buffers per group
  double gemm_workspace_bytes = 32.0 * 1048576;          // cuBLAS workspace (Hopper: 32 MiB)
  double fragmentation_fraction = 0.10;      // allocator slack, as a fraction of activations
  double ddp_bucket_bytes = 25.0 * 1048576;  // DDP bucket (PyTorch bucket_cap_mb = 25)
  double zero_bucket_elements = 5e8;         // DeepSpeed reduce/allgather bucket (ZeRO-1/2)
  double zero3_prefetch_elements = 5e7;      // DeepSpeed stage3_prefetch_bucket_size
};

// The software stack's host cost ("framework" section or preset, scenarios/frameworks/): the CPU
// time the training framework spends issuing work to the GPU. The GPU cannot run an operation
// before the host has dispatched it, so a rank whose host time per work item exceeds its GPU time
// is host-bound (simulator/cost/host_dispatch.h).
struct FrameworkConfig {
  std::string name = "none";
  double op_dispatch_s = 0;          // host seconds per operation of shardsim's op list, per pass
  double collective_dispatch_s = 0;  // host seconds per collective call (TP, CP, EP) in a layer
  double step_overhead_s = 0;        // host seconds per step the GPU waits for (optimizer, sync)
  // Share (0..1) of the shorter of a work item's host and GPU time that does not overlap the
  // longer: the host waits for the GPU at synchronising calls (cost/host_dispatch.h).
  double host_sync_fraction = 0;
  bool fitted = false;  // fitted from measurements (provenance says on what)
  std::string source;   // where the numbers come from
};

// Effects of the step-time model that can be switched off one at a time ("effects" section), so
// their contribution can be shown (simulate --explain). All on by default.
struct EffectSwitches {
  bool host_dispatch = true;       // the framework's host time bounds each work item
  bool gemm_shape = true;          // GEMM efficiency from the profile's measured shape table
  bool kernel_bandwidth = true;    // memory-bound efficiency per kernel and size (profile curves)
  bool attention_kernel = true;    // flash attention at the profile's measured kernel rate
  bool fitted_collectives = true;  // measured collective curves instead of the topology formula
  bool optimizer_traffic = true;   // the mixed-precision optimizer's full byte traffic
  bool comm_contention = true;     // compute slows while a DP (or overlapped TP) collective runs
  bool cross_entropy_traffic = true;  // the loss's bytes from its implementation (cross_entropy)
};

// The "search" section: the values `shardsim search` may give each dimension of the strategy. An
// empty list leaves the dimension to its default range (README "Searching strategies"); a key
// pinned with --set is searched at that value only.
struct SearchSpace {
  std::vector<int> tp, pp, vpp, cp, ep, zero;
  std::vector<std::int64_t> micro_batch;
  std::vector<int> sp, offload_optimizer;  // 0 / 1
  std::vector<Recompute> recompute;
  std::vector<Schedule> schedule;
  std::vector<CpComm> cp_comm;  // search.cp_comm_type
  int top_k = 10;               // plans re-ranked by the discrete-event simulation and reported
};

struct Scenario {
  std::string name;
  ModelConfig model;
  TrainingConfig training;
  Strategy strategy;
  ClusterConfig cluster;
  OverheadConfig overheads;
  FrameworkConfig framework;
  EffectSwitches effects;
  SearchSpace search;
  nlohmann::json resolved;  // the effective input (presets merged, overrides applied)
  // The files the scenario's fields named and loading read, as (field, path) pairs: a GPU
  // profile, a network, a Hugging Face config. A command's outputs must not replace them.
  std::vector<std::pair<std::string, std::string>> files_read;
  // Accepted but questionable input (e.g. a partly used node). The strategy's own warnings and
  // infeasibility are found per evaluation (check_strategy in validate.h, evaluate/evaluate.h).
  std::vector<std::string> warnings;
};

[[nodiscard]] std::string optimizer_name(Optimizer o);

// Whether training.grad_accumulation_cast "separate" takes effect: DeepSpeed's BF16 optimizer
// (hp_grad.add_(lp.grad.to(fp32)), and its bf16 gradients kept until the next backward pass) runs
// an unfused accumulation of 16-bit gradients into FP32 ones, and only with ZeRO 0 or 1 and no
// optimizer offload (DeepSpeed's engine.py _do_optimizer_sanity_check); anywhere else the key
// has no effect, in time or memory, and validation warns (cost/grad_accumulation.cc,
// memory/memory.cc, scenario/validate.cc).
[[nodiscard]] inline bool separate_grad_cast(const Scenario& s) {
  const TrainingConfig& t = s.training;
  return t.grad_accumulation_cast == GradAccumulationCast::kSeparate &&
         !t.grad_accumulation_fusion && t.grad_dtype == GradDtype::kFp32 &&
         t.precision != Dtype::kFp32 && !s.strategy.zero_facts().shards_grads &&
         !s.strategy.offload_optimizer;
}

}  // namespace shardsim
