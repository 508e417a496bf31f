// What the ops of each layer kind cost on one rank (compute only, before any communication), and
// a caller-held memo of them. compute_step_costs (step_costs.h) prices every op of each kind of
// block (block_kind: dense or MoE, each with fused attention over the whole sequence or a
// sliding window), the embedding and the output layer; those prices depend only on the model,
// the GPU and the keys below, which a search revisits across pipeline depth, data parallelism,
// ZeRO and schedules.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "simulator/core/cross_entropy.h"
#include "simulator/core/dtype.h"
#include "simulator/core/memo.h"
#include "simulator/cost/time_split.h"
#include "simulator/hardware/hardware.h"
#include "simulator/model/model_config.h"
#include "simulator/model/ops.h"
#include "simulator/scenario/strategy.h"

namespace shardsim {

// One micro-batch of some work on one rank.
struct WorkCost {
  TimeSplit fwd, bwd_input, bwd_weight;
  double model_flops = 0;     // forward + backward FLOPs on this rank, no recomputation
  double hardware_flops = 0;  // model_flops + recomputed forward FLOPs
  // Host (framework) seconds to dispatch each pass's work (cost/host_dispatch.h); the GPU
  // time above does not include them.
  double host_fwd = 0, host_bwd_input = 0, host_bwd_weight = 0;
  WorkCost& operator+=(const WorkCost& o);
};

// Sums over one op list that the layer's communication and recomputation terms read.
struct OpSums {
  double gemm_fwd = 0, gemm_bwd = 0, core_fwd = 0, core_bwd = 0, core_flops = 0;
  double gemm_dgrad = 0;  // the GEMMs' input-gradient share of gemm_bwd (the weight's left out)
  double fwd_compute = 0, fwd_flops = 0;
  double col_dgrad = 0, col_wgrad = 0;  // column-parallel GEMMs' backward (QKV, fc1, ...)
  double ops = 0, gemms = 0;            // operations in the list, and how many are GEMMs
};

// The ops of one kind: their compute (work) and sums, and the kind's parameter elements on one
// rank (after TP and EP splits).
struct KindCost {
  WorkCost work;
  OpSums sum;
  double dense_params = 0, expert_params = 0;
};

// Every kind of a (scenario, plan). `has[k]`: the model has blocks of kind k
// (block_kind, model/ops.h: dense or MoE, fused attention over the whole sequence or a window).
struct KindCosts {
  KindCost block[kBlockKinds];
  bool has[kBlockKinds] = {};
  KindCost embedding, output;
};

// What KindCosts depend on besides the model and the GPU profile (derived from
// step_costs_detail's Ctx: the op context, the token shape, the padded vocabulary, the TP and EP
// splits of the parameters, and whether the output layer holds its own projection).
struct KindCostKey {
  int tp = 1, cp = 1, ep = 1;
  bool sp = false;  // sequence parallelism in effect (sp && tp > 1)
  Dtype precision = Dtype::kBf16;
  bool tf32 = true;  // OpContext's
  std::int64_t seq_len = 0, micro_batch = 1;
  bool flash_attention = false;
  bool output_projection = false;  // untied embeddings, or pp > 1
  std::string attention_kernel;    // training.attention_kernel
  CrossEntropyKernel cross_entropy = CrossEntropyKernel::kVocabParallel;  // OpContext's
  CpComm cp_comm = CpComm::kP2p;  // a2a gives the attention core its own shape (OpShape)
  // The gradient accumulation's bytes per parameter and micro-batch, for groups that no GEMM
  // accumulates and for those it does (grad_accumulation.cc grad_add_bytes): with the precision
  // above they tell fusion from none, a separate cast (param + 4 x grad bytes) from one in the add
  // (param + 2 x grad), and autograd's .grad ((m - 1) / m of it) from a buffer; with fusion, the
  // hook's adds (ZeRO 0/1) from none (ZeRO-2/3).
  std::array<double, 2> grad_add_bytes{};
  bool operator==(const KindCostKey&) const = default;
};

// A memo of KindCosts for one model on one GPU profile, held by the caller (core/memo.h).
using KindCostCache = Memo<KindCostKey, KindCosts, ModelConfig, GpuProfile>;

}  // namespace shardsim
