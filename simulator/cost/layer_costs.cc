// Per-layer costs of compute_step_costs from the memoised kind costs (kind_costs.cc): the tensor-,
// context- and expert-parallel communication a layer exposes, ZeRO-3 gathers and the host dispatch
// (step_costs_detail.h).
#include <algorithm>

#include "simulator/cost/contention.h"
#include "simulator/cost/host_dispatch.h"
#include "simulator/cost/step_costs_detail.h"
#include "simulator/model/ops.h"
#include "simulator/model/params.h"

namespace shardsim::step_costs_detail {
namespace {

// One s*b*h activation collective over the TP group (0 without TP).
double tp_hidden(const Ctx& c, CollectiveOp op) {
  if (c.plan.tp <= 1) return 0;
  return coll(c, op,
              c.shape.seq_local * c.shape.micro_batch * double(c.s.model.hidden) * c.act_bytes,
              c.tp);
}

// Megatron TP per layer and pass: two all-reduces of the s*b*h activations, or with sequence
// parallelism two all-gathers plus two reduce-scatters of the same (whole) buffer.
double tp_layer_comm(const Ctx& c) {
  if (c.op.sp)
    return 2 *
           (tp_hidden(c, CollectiveOp::kAllGather) + tp_hidden(c, CollectiveOp::kReduceScatter));
  return 2 * tp_hidden(c, CollectiveOp::kAllReduce);
}

// What a layer's backward pass moves over TP: the forward's volume, and with SP two more
// all-gathers (the column-parallel layers gather their input again for the weight gradient and
// reduce-scatter the input gradient; the row-parallel layers gather their output gradient: six
// collectives where the forward has four; tp_backward_exposed).
double tp_layer_comm_backward(const Ctx& c) {
  return tp_layer_comm(c) + (c.op.sp ? 2 * tp_hidden(c, CollectiveOp::kAllGather) : 0);
}

// Exposed seconds of `comm_s` of TP communication hidden behind `gemm_s` of the pass's GEMMs,
// under TP communication overlap (Transformer Engine's userbuffers, Megatron's
// --tp-comm-overlap: each collective split and pipelined with the GEMM beside it). The GEMMs run
// slower while it does (cost/contention.h, the profile's overlap_compute_slowdown; 0 with the
// comm_contention effect off): the pair takes overlapped_seconds, of which the GEMMs alone are
// gemm_s, and the rest is the overlap's cost.
double tp_overlap_exposed(const Ctx& c, double gemm_s, double comm_s) {
  return std::max(
      0.0, overlapped_seconds(gemm_s, comm_s, c.s.cluster.gpu.compute.overlap_compute_slowdown) -
               gemm_s);
}

// Exposed TP time of a layer's backward pass, following Megatron-LM's asynchronous TP
// communication in the column-parallel layers (QKV, fc1): without SP their input-gradient
// all-reduces (2) run while the weight-gradient GEMMs compute; with SP the input is all-gathered
// again (2) while the data-gradient GEMMs run and the input gradient is reduce-scattered (2)
// while the weight-gradient GEMMs run, and the row-parallel layers all-gather their output
// gradient (2) before computing, exposed.
double tp_backward_exposed(const Ctx& c, double col_dgrad, double col_wgrad) {
  if (c.plan.tp <= 1) return 0;
  if (!c.op.sp) return std::max(0.0, 2 * tp_hidden(c, CollectiveOp::kAllReduce) - col_wgrad);
  const double ag = 2 * tp_hidden(c, CollectiveOp::kAllGather);
  const double rs = 2 * tp_hidden(c, CollectiveOp::kReduceScatter);
  return ag + std::max(0.0, ag - col_dgrad) + std::max(0.0, rs - col_wgrad);
}

// Bytes of one micro-batch's Q, K, V and attention output on this rank (heads split by TP):
// the tensors context parallelism exchanges.
ModelConfig::AttentionWidths attention_tensors(const Ctx& c) {
  const double per_width = c.shape.seq_local * c.shape.micro_batch * c.act_bytes / c.plan.tp;
  const auto w = c.s.model.attention_widths();
  return {w.q * per_width, w.k * per_width, w.v * per_width, w.out * per_width};
}

// Context-parallel exchange of one block per micro-batch, each pass (Transformer Engine's
// context_parallel.py, by parallel.cp_comm_type):
// - p2p: cp - 1 ring steps, each sending this rank's K and V to the next rank while the attention
//   of the chunk received before computes (hidden behind it); the backward's cp steps move K and
//   V, then both with their gradients, then the gradients (twice the forward's bytes).
// - all_gather: K and V are all-gathered before the attention (exposed: nothing computes until
//   they arrive); the backward gathers them again and reduce-scatters dK and dV, all exposed.
// - a2a: all-to-alls of Q, K and V before the attention and of its output after (forward), of the
//   output's gradient and then dQ, dK, dV (backward); each rank sends its own tensors (nccl-tests'
//   all-to-all size), exposed.
struct CpExchange {
  double fwd = 0, bwd = 0;  // seconds per pass
  bool overlapped = false;  // behind the attention core (the ring)
  int fwd_calls = 0, bwd_calls = 0;
};
CpExchange cp_exchange(const Ctx& c) {
  const int cp = c.plan.cp;
  if (cp <= 1) return {};
  const auto a = attention_tensors(c);
  switch (c.s.strategy.cp_comm) {
    case CpComm::kP2p: {
      // The backward's cp steps send K and V first, K, V, dK and dV together in the middle, and
      // dK and dV last: the forward's bytes twice, in cp calls.
      const double kv = coll(c, CollectiveOp::kSendRecv, a.k + a.v, c.cp);
      const double both = coll(c, CollectiveOp::kSendRecv, 2 * (a.k + a.v), c.cp);
      return {(cp - 1) * kv, 2 * kv + (cp - 2) * both, true, cp - 1, cp};
    }
    case CpComm::kAllGather: {
      const double gather = coll(c, CollectiveOp::kAllGather, cp * a.k, c.cp) +
                            coll(c, CollectiveOp::kAllGather, cp * a.v, c.cp);
      const double scatter = coll(c, CollectiveOp::kReduceScatter, cp * a.k, c.cp) +
                             coll(c, CollectiveOp::kReduceScatter, cp * a.v, c.cp);
      return {gather, gather + scatter, false, 2, 4};
    }
    case CpComm::kA2a: {
      const double all = coll(c, CollectiveOp::kAllToAll, a.q, c.cp) +
                         coll(c, CollectiveOp::kAllToAll, a.k, c.cp) +
                         coll(c, CollectiveOp::kAllToAll, a.v, c.cp) +
                         coll(c, CollectiveOp::kAllToAll, a.out, c.cp);
      return {all, all, false, 4, 4};
    }
  }
  return {};
}

// MoE dispatch or combine (Megatron-Core's all-to-all dispatcher): each rank sends its own
// tokens' top-k copies of width h over the EP group (a TP rank's sequence shard under SP), and
// with TP the received tokens are then all-gathered over the TP group (the combine
// reduce-scatters them back), so the experts see all of them on every TP rank.
double ep_all_to_all(const Ctx& c) {
  const double tokens = c.shape.seq_local * c.shape.micro_batch / (c.op.sp ? c.plan.tp : 1);
  return coll(c, CollectiveOp::kAllToAll,
              tokens * c.s.model.moe.top_k * double(c.s.model.hidden) * c.act_bytes, c.ep);
}

// The TP all-gather (dispatch) or reduce-scatter (combine) of the routed tokens under SP.
double moe_tp_exchange(const Ctx& c, CollectiveOp op) {
  if (c.plan.tp <= 1 || !c.op.sp) return 0;
  const double routed = c.shape.seq_local * c.shape.micro_batch * c.s.model.moe.top_k;
  return coll(c, op, routed * double(c.s.model.hidden) * c.act_bytes, c.tp);
}

void add_zero3(const Ctx& c, LayerCost& lc) {
  if (!c.s.strategy.zero_facts().gathers_params_per_layer) return;
  lc.zero3_gather_seconds =
      coll(c, CollectiveOp::kAllGather, lc.dense_params * c.param_bytes, c.dp) +
      coll(c, CollectiveOp::kAllGather, lc.expert_params * c.param_bytes, c.edp);
  lc.zero3_reduce_seconds =
      coll(c, CollectiveOp::kReduceScatter, lc.dense_params * c.grad_bytes, c.dp) +
      coll(c, CollectiveOp::kReduceScatter, lc.expert_params * c.grad_bytes, c.edp);
  if (c.s.strategy.offload_params) {
    const double shard = lc.dense_params / c.dp.size + lc.expert_params / c.edp.size;
    lc.zero3_h2d_seconds = host_copy_seconds(shard * c.param_bytes, c.s.cluster.gpu);
  }
}

// Collective calls a block issues per pass (host dispatch counts): TP two all-reduces forward and
// two backward, or with SP two all-gathers and two reduce-scatters forward and six backward
// (tp_backward_exposed); CP's exchange (cp_exchange), again in the backward under selective
// recomputation; an MoE block's dispatch and combine all-to-alls, with their TP exchanges under
// SP, each way.
void count_collectives(const Ctx& c, bool moe, const CpExchange& cp, DispatchCounts& n) {
  if (c.plan.tp > 1) {
    n.fwd_colls += c.op.sp ? 4 : 2;
    n.bwd_colls += c.op.sp ? 6 : 2;
  }
  n.fwd_colls += cp.fwd_calls;
  n.bwd_colls += cp.bwd_calls;
  // Selective recomputation re-runs the core attention, its exchange included.
  if (c.s.strategy.recompute == Recompute::kSelective) n.bwd_colls += cp.fwd_calls;
  if (moe) {
    const double per_pass = 2 + (c.plan.tp > 1 && c.op.sp ? 2 : 0);
    n.fwd_colls += per_pass;
    n.bwd_colls += per_pass;
  }
}

void add_host(const Ctx& c, const OpSums& sum, DispatchCounts n, WorkCost& w) {
  n.ops = sum.ops;
  n.gemms = sum.gemms;
  n.split_weight = c.s.strategy.schedule_facts().split_weight_grad;
  const HostSeconds h = host_dispatch_seconds(c.s.framework, n);
  w.host_fwd = h.fwd;
  w.host_bwd_input = h.bwd_input;
  w.host_bwd_weight = h.bwd_weight;
}

}  // namespace

LayerCost layer_cost(const Ctx& c, int layer, const KindCost& kc) {
  LayerCost lc;
  WorkCost& w = lc.work;
  w = kc.work;
  const OpSums& sum = kc.sum;
  // TP collectives: without TP communication overlap the forward's are exposed and the backward's
  // follow Megatron's asynchronous scheme. With it (userbuffers, which replaces that scheme) each
  // pass's collectives hide behind the pass's GEMMs, slowed while they do (tp_overlap_exposed).
  // The GEMMs are pooled: userbuffers pairs each collective with the GEMM beside it, so a
  // collective longer than its own GEMM (the attention projection's, at large TP) is hidden here
  // by its neighbours' time, which is optimistic.
  const double tp = tp_layer_comm(c);
  const bool overlap = c.s.strategy.overlap_tp_comm;
  const double tp_fwd = overlap ? tp_overlap_exposed(c, sum.gemm_fwd, tp) : tp;
  // Under the zero-bubble schedules the weight-gradient GEMMs run later, in their own W pass:
  // nothing of theirs is there to hide the input-gradient collectives.
  const bool zb = c.s.strategy.schedule_facts().split_weight_grad;
  const double tp_bwd =
      overlap ? tp_overlap_exposed(c, zb ? sum.gemm_dgrad : sum.gemm_bwd, tp_layer_comm_backward(c))
              : tp_backward_exposed(c, sum.col_dgrad, zb ? 0 : sum.col_wgrad);
  w.fwd.add(TimeCategory::kTpComm, tp_fwd);
  w.bwd_input.add(TimeCategory::kTpComm, tp_bwd);
  // The CP ring overlaps the attention it feeds; the all-gather and the all-to-alls do not.
  const CpExchange cp = cp_exchange(c);
  const double cp_fwd = cp.overlapped ? std::max(0.0, cp.fwd - sum.core_fwd) : cp.fwd;
  w.fwd.add(TimeCategory::kCpComm, cp_fwd);
  w.bwd_input.add(TimeCategory::kCpComm,
                  cp.overlapped ? std::max(0.0, cp.bwd - sum.core_bwd) : cp.bwd);
  // EP dispatch and combine, forward and backward.
  const bool moe = c.s.model.is_moe_layer(layer);
  const double ep = moe ? 2 * ep_all_to_all(c) : 0;
  w.fwd.add(TimeCategory::kEpComm, ep);
  w.bwd_input.add(TimeCategory::kEpComm, ep);
  const double moe_tp = moe ? moe_tp_exchange(c, CollectiveOp::kAllGather) +
                                  moe_tp_exchange(c, CollectiveOp::kReduceScatter)
                            : 0;
  w.fwd.add(TimeCategory::kTpComm, moe_tp);
  w.bwd_input.add(TimeCategory::kTpComm, moe_tp);
  // Recomputation in the backward pass (HFU counts it, MFU does not).
  if (c.s.strategy.recompute == Recompute::kSelective) {
    // Megatron checkpoints the core attention module, Transformer Engine's context-parallel
    // exchange inside it: recomputing it exchanges again (until 2026-11-29 left out).
    w.bwd_input.add(TimeCategory::kRecompute, sum.core_fwd);
    w.bwd_input.add(TimeCategory::kCpComm, cp_fwd);
    w.hardware_flops += sum.core_flops;
  } else if (c.s.strategy.recompute == Recompute::kFull) {
    w.bwd_input.add(TimeCategory::kRecompute, sum.fwd_compute);
    w.bwd_input.add(TimeCategory::kTpComm, tp_fwd);
    w.bwd_input.add(TimeCategory::kCpComm, cp_fwd);
    w.bwd_input.add(TimeCategory::kEpComm, ep);
    w.hardware_flops += sum.fwd_flops;
  }
  lc.dense_params = kc.dense_params;
  lc.expert_params = kc.expert_params;
  add_zero3(c, lc);
  DispatchCounts n;
  count_collectives(c, moe, cp, n);
  n.recompute_full = c.s.strategy.recompute == Recompute::kFull;
  add_host(c, sum, n, w);
  return lc;
}

LayerCost embedding_cost(const Ctx& c, const KindCost& kc) {
  LayerCost lc;
  WorkCost& w = lc.work;
  w = kc.work;
  // Vocabulary-parallel lookup: the partial embeddings are summed over TP, an all-reduce, or with
  // SP a reduce-scatter into the sequence-parallel region.
  w.fwd.add(TimeCategory::kTpComm,
            tp_hidden(c, c.op.sp ? CollectiveOp::kReduceScatter : CollectiveOp::kAllReduce));
  lc.dense_params = kc.dense_params;
  add_zero3(c, lc);
  DispatchCounts n;
  n.fwd_colls = c.plan.tp > 1 ? 1 : 0;
  add_host(c, kc.sum, n, w);
  return lc;
}

LayerCost output_cost(const Ctx& c, const KindCost& kc) {
  LayerCost lc;
  WorkCost& w = lc.work;
  w = kc.work;
  // The output projection is column-parallel: with SP its input is all-gathered and its input
  // gradient reduce-scattered; without SP the input gradient is all-reduced.
  if (c.op.sp) {
    w.fwd.add(TimeCategory::kTpComm, tp_hidden(c, CollectiveOp::kAllGather));
    w.bwd_input.add(TimeCategory::kTpComm, tp_hidden(c, CollectiveOp::kReduceScatter));
  } else {
    w.bwd_input.add(TimeCategory::kTpComm, tp_hidden(c, CollectiveOp::kAllReduce));
  }
  lc.dense_params = kc.dense_params;
  add_zero3(c, lc);
  DispatchCounts n;
  n.fwd_colls = c.plan.tp > 1 && c.op.sp ? 1 : 0;
  n.bwd_colls = c.plan.tp > 1 ? 1 : 0;
  add_host(c, kc.sum, n, w);
  return lc;
}

}  // namespace shardsim::step_costs_detail
