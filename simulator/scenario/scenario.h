// A resolved, validated scenario: the model, the training set-up, the parallel strategy, the
// cluster and the memory-overhead terms. Built by load_scenario() (load.h); plain data after that.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "simulator/core/dtype.h"
#include "simulator/core/infeasible.h"
#include "simulator/hardware/hardware.h"
#include "simulator/model/model_config.h"

namespace shardsim {

enum class GradDtype { kSame, kFp32 };
enum class Optimizer { kAdam, kAdamW, kSgd };
enum class Recompute { kNone, kSelective, kFull };
enum class Schedule { kGpipe, k1F1B, kInterleaved, kZbH1, kZbH2 };

struct TrainingConfig {
  std::int64_t seq_len = 0;                 // tokens per sequence (required)
  std::int64_t global_batch = 0;            // sequences per optimizer step (required)
  std::int64_t micro_batch = 1;             // sequences per micro-batch per data-parallel rank
  Dtype precision = Dtype::kBf16;           // fp32, or fp16/bf16/fp8 mixed precision
  GradDtype grad_dtype = GradDtype::kSame;  // kFp32 keeps FP32 main gradients (Megatron)
  Optimizer optimizer = Optimizer::kAdamW;
  Recompute recompute = Recompute::kNone;
  bool flash_attention = true;  // fused attention: no s^2 score tensors are stored
};

struct ParallelConfig {
  int tp = 1;       // tensor parallel
  int pp = 1;       // pipeline stages
  int vpp = 1;      // virtual stages (model chunks) per pipeline rank; > 1 needs "interleaved"
  int cp = 1;       // context parallel
  int ep = 1;       // expert parallel (experts sharded over EP ranks carved out of DP x CP)
  int dp = 0;       // data parallel; 0 in the file means "derived from the GPU count"
  bool sp = false;  // sequence parallel (needs tp > 1 to matter)
  int zero = 0;     // ZeRO stage 0..3 over the data-parallel (x context-parallel) group
  bool offload_optimizer = false;  // optimizer states (and FP32 gradients) in host memory
  bool offload_params = false;     // parameters in host memory (ZeRO-3 only)
  Schedule schedule = Schedule::k1F1B;
  bool overlap_grad_reduce = true;
  bool overlap_param_gather = true;
  bool overlap_tp_comm = false;  // TP/SP collectives overlapped with the adjacent GEMMs
  // Order of the parallel dimensions in the global rank, innermost first ("tp-cp-dp-pp"):
  // decides which groups share a node. EP groups are carved from DP.
  std::string rank_order = "tp-cp-dp-pp";
  int first_stage_layers = -1;  // -1: automatic (Megatron-style uneven split when needed)
  int last_stage_layers = -1;
};

struct ClusterConfig {
  GpuProfile gpu;
  int gpus_per_node = 0;  // 0 -> the GPU preset's node size
  int nodes = 0;          // 0 -> derived from parallel.dp, or 1
  NetworkConfig network;
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

struct Scenario {
  std::string name;
  ModelConfig model;
  TrainingConfig training;
  ParallelConfig parallel;
  ClusterConfig cluster;
  OverheadConfig overheads;
  nlohmann::json resolved;            // the effective input (presets merged, overrides applied)
  std::vector<std::string> warnings;  // accepted but questionable choices, for the report
  // Valid input describing a plan that cannot run (reported as a result, not an error); when
  // non-empty, no plan is built.
  std::vector<Infeasibility> infeasible;
};

[[nodiscard]] std::string schedule_name(Schedule s);
[[nodiscard]] std::string recompute_name(Recompute r);
[[nodiscard]] std::string optimizer_name(Optimizer o);

}  // namespace shardsim
