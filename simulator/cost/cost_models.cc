// The one-line description of every compute and communication cost model (compute.h), for docs
// and --help; kept apart from the formulas in compute.cc.
#include "simulator/cost/compute.h"

namespace shardsim {

std::vector<CostModelInfo> cost_models() {
  return {
      {"gemm",
       "GEMM roofline: 2mnk*batch FLOPs at the dtype's peak x peak efficiency x tile/wave "
       "quantization x k/(k+k_half) x alignment, vs operand bytes at HBM x memory-bound "
       "efficiency, + launch overhead (priced from a measured table timed back to back: at "
       "least one launch, none added; a kernel_only table adds it)"},
      {"memory_bound",
       "streaming kernel: bytes / (HBM bandwidth x memory_bound_efficiency) + launch (on a "
       "measured curve timed back to back: at least one launch, none added); the "
       "efficiency is piecewise linear in log(bytes) when the profile has memory_bound_points"},
      {"cross_entropy",
       "loss over the vocabulary: logits (tokens x vocabulary / TP) x bytes per logit of the "
       "stack's implementation (training.cross_entropy: Megatron's vocabulary-parallel fp32 "
       "passes 38 B forward + 14 B backward per 16-bit logit, fused kernels 4 + 4 B); kernels "
       "that evaluate an exponential at the softmax class's memory-bound efficiency, the rest at "
       "the generic one"},
      {"gemm_measured",
       "compute.kind measured: GEMM efficiency by inverse-distance weighting of the 4 nearest "
       "measured (log2 m, log2 n, log2 k) points of the dtype, query clamped to the measured "
       "range; dtypes without points use the roofline closed form"},
      {"flash_attention",
       "fused attention: 4*s_local*keys*head_dim*heads*batch FLOPs counted (causal not halved; "
       "keys = s_full, or 2w - w^2/s_full under a sliding window of w), half of them timed under "
       "causal masking, at the profile's measured flash attention efficiency at that many keys "
       "(attention_points, fp16/bf16, scaled by SM fill) or else its score "
       "GEMM's efficiency, Q/K/V/O bytes; backward 2.5x FLOPs (2x of them model work), 2x bytes"},
      {"attention_bmm",
       "unfused Q.K^T and P.V batched GEMMs; backward-input runs both operand-gradient GEMMs"},
      {"op_cost",
       "per-op forward / backward-input / backward-weight cost on one TP rank (column n/tp, row "
       "k/tp, heads batch/tp, sequence elements/tp under SP); memory-bound ops by bytes moved"},
      {"optimizer_step", "GPU optimizer step: params x bytes_per_param through HBM, memory-bound"},
      {"collective",
       "collective: latency + size / bandwidth with size-dependent efficiency on the two-level "
       "NVLink / NIC topology (simulator/cost/collective.h)"},
      {"host_copy", "host <-> device copy over PCIe, one direction (simulator/cost/collective.h)"},
  };
}

}  // namespace shardsim
