// Every cost a training step is built from, for one scenario and plan: per-layer forward,
// backward-input and backward-weight times on one rank (compute plus the TP/CP/EP communication
// exposed inside the layer), pipeline transfers, data-parallel buckets, ZeRO gathers, the optimizer
// and offload copies, and FLOP counts. Both the DES and the analytic model consume this.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/cost/kind_costs.h"
#include "simulator/cost/time_split.h"
#include "simulator/plan/plan.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

struct LayerCost {
  WorkCost work;
  double dense_params = 0;   // parameter elements on one rank (after TP split)
  double expert_params = 0;  // routed-expert parameter elements on one rank (after EP and TP)
  double zero3_gather_seconds = 0;  // ZeRO-3: all-gather of the layer's parameters (per pass)
  double zero3_reduce_seconds = 0;  // ZeRO-3: reduce-scatter of its gradients (per micro-batch)
  double zero3_h2d_seconds = 0;     // ZeRO-3 parameter offload: host->device copy of the shard
};

// A gradient bucket, reduced once per step after the layer `trigger_layer` finished its last
// backward (DDP/ZeRO-1/2 overlap the reduction with the remaining backward pass).
struct Bucket {
  int trigger_layer = 0;  // -1: after the whole stage (embedding/output parameters)
  double bytes = 0;
  double seconds = 0;
  // Reduced once per step even where ZeRO-2 reduces every micro-batch's gradients: the tied
  // embedding's all-reduce between the first and last stage (Megatron's finalize_model_grads).
  bool once_per_step = false;
};

struct StageCost {
  std::vector<Bucket> buckets;      // in the order they become ready (backward order)
  double param_gather_seconds = 0;  // ZeRO-1/2: all-gather of updated parameters
  double optimizer_seconds = 0;     // GPU optimizer step
  double offload_d2h_seconds = 0;   // optimizer offload: gradients to the host
  double host_optimizer_seconds = 0;
  double offload_h2d_seconds = 0;  // updated parameters back to the GPU
  double dp_wire_bytes = 0;        // data-parallel bytes one GPU sends per step (bus factor x size)
  double forward_seconds = 0;      // one micro-batch's forward over all the stage's chunks
};

struct StepCosts {
  // Blocks of one kind (block_kind: dense or MoE, windowed or not) cost the same: one LayerCost
  // per kind, and model layer l
  // costs kinds[layer_kind[l]] (layer(l)). Hand-built costs may give every layer its own kind
  // (set_layers).
  std::vector<LayerCost> kinds;
  std::vector<std::uint32_t> layer_kind;  // indexed by model layer
  LayerCost embedding;                    // first stage, per micro-batch (with its ZeRO-3 traffic)
  LayerCost output;                       // last stage: final norm, logits, loss
  double p2p_seconds = 0;                 // one micro-batch's activations between adjacent stages
  std::vector<StageCost> stages;          // indexed by pipeline stage
  double peak_flops_per_gpu = 0;          // dense peak of the GEMMs' dtype (MFU denominator)
  double step_host_seconds = 0;           // the framework's per-step host time the GPU waits for
  // Compute slows by this fraction while a data-parallel collective runs beside it (contention.h).
  double overlap_slowdown = 0;

  [[nodiscard]] const LayerCost& layer(int l) const { return kinds[layer_kind[std::size_t(l)]]; }
  [[nodiscard]] int layer_count() const { return int(layer_kind.size()); }
  // One kind per layer, in order.
  void set_layers(std::vector<LayerCost> per_layer);
};

// `cache`: a caller-held memo of the per-kind op costs (kind_costs.h); the result is the same
// with or without it.
[[nodiscard]] StepCosts compute_step_costs(const Scenario& s, const Plan& plan,
                                           KindCostCache* cache = nullptr);

}  // namespace shardsim
