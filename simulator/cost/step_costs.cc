#include "simulator/cost/step_costs.h"

#include <algorithm>

#include "simulator/cost/collective.h"
#include "simulator/cost/compute.h"
#include "simulator/model/ops.h"
#include "simulator/model/params.h"

namespace shardsim {
namespace {

struct Ctx {
  const Scenario& s;
  const Plan& plan;
  OpContext op;
  OpShape shape;
  double act_bytes = 2;    // bytes per activation element
  double param_bytes = 2;  // bytes per parameter communicated
  double grad_bytes = 2;
  GroupPlacement tp, cp, ep, dp, edp, pp;
  // Memo of collective times: stages repeat the same bucket sizes (analytic fast path).
  struct Memo {
    CollectiveOp op;
    double bytes;
    int size, ranks_per_node;
    double seconds;
  };
  mutable std::vector<Memo> memo;
};

double coll(const Ctx& c, CollectiveOp op, double bytes, const GroupPlacement& g) {
  if (g.size <= 1 || bytes <= 0) return 0;
  for (const auto& e : c.memo)
    if (e.op == op && e.bytes == bytes && e.size == g.size && e.ranks_per_node == g.ranks_per_node)
      return e.seconds;
  const double t = collective_cost(op, bytes, g, c.s.cluster.network).seconds;
  if (c.memo.size() < 64) c.memo.push_back({op, bytes, g.size, g.ranks_per_node, t});
  return t;
}

bool is_attention_core(const Op& op) {
  switch (op.kind) {
    case OpKind::kAttentionScore:
    case OpKind::kAttentionValue:
    case OpKind::kFlashAttention:
    case OpKind::kSoftmax:
      return true;
    default:
      return std::any_of(op.saves.begin(), op.saves.end(),
                         [](const SavedTensor& t) { return t.attention_core; });
  }
}

bool is_gemm(const Op& op) {
  return op.kind == OpKind::kGemm || op.kind == OpKind::kExpertGemm;
}

// Megatron TP per layer and pass: two all-reduces of the s*b*h activations, or with sequence
// parallelism two all-gathers plus two reduce-scatters of the same (whole) buffer.
double tp_layer_comm(const Ctx& c) {
  if (c.plan.tp <= 1) return 0;
  const double bytes =
      c.shape.seq_local * c.shape.micro_batch * double(c.s.model.hidden) * c.act_bytes;
  if (c.op.sp)
    return 2 * (coll(c, CollectiveOp::kAllGather, bytes, c.tp) +
                coll(c, CollectiveOp::kReduceScatter, bytes, c.tp));
  return 2 * coll(c, CollectiveOp::kAllReduce, bytes, c.tp);
}

// Exposed TP time of a layer's backward pass, following Megatron-LM's asynchronous TP
// communication in the column-parallel layers (QKV, fc1): without SP their input-gradient
// all-reduces (2) run while the weight-gradient GEMMs compute; with SP the input is all-gathered
// again (2) while the data-gradient GEMMs run and the input gradient is reduce-scattered (2)
// while the weight-gradient GEMMs run, and the row-parallel layers all-gather their output
// gradient (2) before computing, exposed.
double tp_backward_exposed(const Ctx& c, double col_dgrad, double col_wgrad) {
  if (c.plan.tp <= 1) return 0;
  const double bytes =
      c.shape.seq_local * c.shape.micro_batch * double(c.s.model.hidden) * c.act_bytes;
  if (!c.op.sp)
    return std::max(0.0, 2 * coll(c, CollectiveOp::kAllReduce, bytes, c.tp) - col_wgrad);
  const double ag = 2 * coll(c, CollectiveOp::kAllGather, bytes, c.tp);
  const double rs = 2 * coll(c, CollectiveOp::kReduceScatter, bytes, c.tp);
  return ag + std::max(0.0, ag - col_dgrad) + std::max(0.0, rs - col_wgrad);
}

// Context parallel ring attention: cp - 1 exchanges of this rank's K and V (heads split by TP).
double cp_ring_seconds(const Ctx& c) {
  if (c.plan.cp <= 1) return 0;
  const auto& m = c.s.model;
  const double kv_width = m.attention == AttentionType::kMla
                              ? double(m.heads) * double(m.mla.qk_nope_head_dim +
                                                         m.mla.qk_rope_head_dim + m.mla.v_head_dim)
                              : 2.0 * m.effective_kv_heads() * double(m.effective_head_dim());
  const double bytes = c.shape.seq_local * c.shape.micro_batch * kv_width * c.act_bytes / c.plan.tp;
  return (c.plan.cp - 1) * coll(c, CollectiveOp::kSendRecv, bytes, c.cp);
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

struct OpSums {
  double gemm_fwd = 0, gemm_bwd = 0, core_fwd = 0, core_bwd = 0, core_flops = 0;
  double fwd_compute = 0, fwd_flops = 0;
  double col_dgrad = 0, col_wgrad = 0;  // column-parallel GEMMs' backward (QKV, fc1, ...)
};

OpSums add_op_costs(const Ctx& c, const std::vector<Op>& ops, WorkCost& w) {
  OpSums sum;
  const GpuProfile& gpu = c.s.cluster.gpu;
  for (const auto& op : ops) {
    const OpCost f = op_cost(op, Pass::kForward, c.op, gpu);
    const OpCost bi = op_cost(op, Pass::kBackwardInput, c.op, gpu);
    const OpCost bw = op_cost(op, Pass::kBackwardWeight, c.op, gpu);
    w.fwd.add(TimeCategory::kCompute, f.seconds);
    w.bwd_input.add(TimeCategory::kCompute, bi.seconds);
    w.bwd_weight.add(TimeCategory::kCompute, bw.seconds);
    // Megatron's convention: backward = 2x forward. Flash attention's backward executes 2.5x (it
    // recomputes the scores): the extra half is hardware work, not model work.
    const double executed = f.flops + bi.flops + bw.flops;
    double model = op.kind == OpKind::kFlashAttention ? 3 * f.flops : executed;
    // GEMMs that TP does not split (router, MLA down projections) run on every TP rank; each
    // rank's share of the model's work is 1/tp of them.
    if (op.split == TpSplit::kNone && is_gemm(op)) model /= c.plan.tp;
    w.model_flops += model;
    w.hardware_flops += executed;
    sum.fwd_compute += f.seconds;
    sum.fwd_flops += f.flops;
    if (is_gemm(op)) {
      sum.gemm_fwd += f.seconds;
      sum.gemm_bwd += bi.seconds + bw.seconds;
      if (op.split == TpSplit::kColumn) {
        sum.col_dgrad += bi.seconds;
        sum.col_wgrad += bw.seconds;
      }
    }
    if (is_attention_core(op)) {
      sum.core_fwd += f.seconds;
      sum.core_bwd += bi.seconds;
      sum.core_flops += f.flops;
    }
  }
  return sum;
}

void split_params(const Ctx& c, int layer, LayerCost& lc) {
  for (const auto& g : layer_params(c.s.model, layer)) {
    if (g.shard == ParamShard::kExpert)
      lc.expert_params += g.count / (double(c.plan.ep) * c.plan.tp);
    else
      lc.dense_params += g.shard == ParamShard::kTensor ? g.count / c.plan.tp : g.count;
  }
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

LayerCost layer_cost(const Ctx& c, int layer) {
  LayerCost lc;
  WorkCost& w = lc.work;
  const OpSums sum = add_op_costs(c, layer_ops(c.s.model, layer, c.shape), w);
  // TP collectives: the forward's are exposed unless TP communication overlap (userbuffers) hides
  // them behind the pass's GEMMs; the backward's follow Megatron's asynchronous scheme.
  const double tp = tp_layer_comm(c);
  const bool overlap = c.s.strategy.overlap_tp_comm;
  const double tp_fwd = overlap ? std::max(0.0, tp - sum.gemm_fwd) : tp;
  // Under the zero-bubble schedules the weight-gradient GEMMs run later, in their own W pass:
  // nothing of theirs is there to hide the input-gradient collectives.
  const bool zb = c.s.strategy.schedule_facts().split_weight_grad;
  const double tp_bwd_async = tp_backward_exposed(c, sum.col_dgrad, zb ? 0 : sum.col_wgrad);
  const double tp_bwd =
      overlap ? std::min(tp_bwd_async, std::max(0.0, tp - sum.gemm_bwd)) : tp_bwd_async;
  w.fwd.add(TimeCategory::kTpComm, tp_fwd);
  w.bwd_input.add(TimeCategory::kTpComm, tp_bwd);
  // CP ring exchange overlaps the attention it feeds; backward moves K, V and their gradients.
  const double cp = cp_ring_seconds(c);
  const double cp_fwd = std::max(0.0, cp - sum.core_fwd);
  w.fwd.add(TimeCategory::kCpComm, cp_fwd);
  w.bwd_input.add(TimeCategory::kCpComm, std::max(0.0, 2 * cp - sum.core_bwd));
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
    w.bwd_input.add(TimeCategory::kRecompute, sum.core_fwd);
    w.hardware_flops += sum.core_flops;
  } else if (c.s.strategy.recompute == Recompute::kFull) {
    w.bwd_input.add(TimeCategory::kRecompute, sum.fwd_compute);
    w.bwd_input.add(TimeCategory::kTpComm, tp_fwd);
    w.bwd_input.add(TimeCategory::kCpComm, cp_fwd);
    w.bwd_input.add(TimeCategory::kEpComm, ep);
    w.hardware_flops += sum.fwd_flops;
  }
  split_params(c, layer, lc);
  add_zero3(c, lc);
  return lc;
}

// One s*b*h activation collective over the TP group (0 without TP).
double tp_hidden(const Ctx& c, CollectiveOp op) {
  if (c.plan.tp <= 1) return 0;
  return coll(c, op,
              c.shape.seq_local * c.shape.micro_batch * double(c.s.model.hidden) * c.act_bytes,
              c.tp);
}

LayerCost embedding_cost(const Ctx& c, double vocab) {
  LayerCost lc;
  WorkCost& w = lc.work;
  add_op_costs(c, embedding_ops(c.s.model, vocab, c.shape), w);
  // Vocabulary-parallel lookup: the partial embeddings are summed over TP, an all-reduce, or with
  // SP a reduce-scatter into the sequence-parallel region.
  w.fwd.add(TimeCategory::kTpComm,
            tp_hidden(c, c.op.sp ? CollectiveOp::kReduceScatter : CollectiveOp::kAllReduce));
  for (const auto& g : embedding_params(c.s.model, vocab, c.s.training.seq_len))
    lc.dense_params += g.shard == ParamShard::kTensor ? g.count / c.plan.tp : g.count;
  add_zero3(c, lc);
  return lc;
}

LayerCost output_cost(const Ctx& c, double vocab) {
  LayerCost lc;
  WorkCost& w = lc.work;
  add_op_costs(c, output_ops(c.s.model, vocab, c.shape), w);
  // The output projection is column-parallel: with SP its input is all-gathered and its input
  // gradient reduce-scattered; without SP the input gradient is all-reduced.
  if (c.op.sp) {
    w.fwd.add(TimeCategory::kTpComm, tp_hidden(c, CollectiveOp::kAllGather));
    w.bwd_input.add(TimeCategory::kTpComm, tp_hidden(c, CollectiveOp::kReduceScatter));
  } else {
    w.bwd_input.add(TimeCategory::kTpComm, tp_hidden(c, CollectiveOp::kAllReduce));
  }
  const auto& m = c.s.model;
  for (const auto& g : output_params(m, vocab, !m.tied_embeddings || c.plan.pp > 1))
    lc.dense_params += g.shard == ParamShard::kTensor ? g.count / c.plan.tp : g.count;
  add_zero3(c, lc);
  return lc;
}

// Parameters of the stage beyond its blocks: embedding (first) and output (last) layers.
void extra_params(const Ctx& c, const PipelineStage& st, double vocab, double& first_bucket,
                  double& last_bucket) {
  auto local = [&](const std::vector<ParamGroup>& groups) {
    double n = 0;
    for (const auto& g : groups)
      n += g.shard == ParamShard::kTensor ? g.count / c.plan.tp : g.count;
    return n;
  };
  const auto& m = c.s.model;
  if (st.has_output)
    first_bucket += local(output_params(m, vocab, !m.tied_embeddings || c.plan.pp > 1));
  if (st.has_embedding) last_bucket += local(embedding_params(m, vocab, c.s.training.seq_len));
}

double reduce_seconds(const Ctx& c, double dense, double expert) {
  const CollectiveOp op = c.s.strategy.zero_facts().reduce_scatters_grads
                              ? CollectiveOp::kReduceScatter
                              : CollectiveOp::kAllReduce;
  return coll(c, op, dense * c.grad_bytes, c.dp) + coll(c, op, expert * c.grad_bytes, c.edp);
}

// Optimizer bytes touched per parameter: the gradient read; the FP32 master copy and each FP32
// moment (Adam: 2, SGD: 1) read and written; mixed precision also writes the low-precision copy.
double optimizer_bytes_per_param(const Ctx& c) {
  const auto& t = c.s.training;
  const double moments = t.optimizer == Optimizer::kSgd ? 8 : 16;
  const double master = 8;
  if (t.precision == Dtype::kFp32) return c.grad_bytes + master + moments;  // params are master
  return c.grad_bytes + master + moments + c.param_bytes;
}

// Bytes one GPU puts on the wire for data parallelism per step: nccl-tests bus factor x size.
// DDP all-reduces the gradients (2(n-1)/n); ZeRO-1/2 reduce-scatter them and all-gather the
// parameters ((n-1)/n each); ZeRO-3 gathers each layer's parameters in forward and backward and
// reduce-scatters its gradients, every micro-batch.
double dp_wire_bytes(const Ctx& c, double dense, double expert) {
  const int n = c.dp.size, ne = c.edp.size;
  const ZeroTraits& zero = c.s.strategy.zero_facts();
  if (!zero.reduce_scatters_grads)
    return bus_factor(CollectiveOp::kAllReduce, n) * dense * c.grad_bytes +
           bus_factor(CollectiveOp::kAllReduce, ne) * expert * c.grad_bytes;
  const double rs = bus_factor(CollectiveOp::kReduceScatter, n) * dense * c.grad_bytes +
                    bus_factor(CollectiveOp::kReduceScatter, ne) * expert * c.grad_bytes;
  const double ag = bus_factor(CollectiveOp::kAllGather, n) * dense * c.param_bytes +
                    bus_factor(CollectiveOp::kAllGather, ne) * expert * c.param_bytes;
  const double m = double(c.plan.micro_batches);
  const double reduced = zero.reduces_every_microbatch ? rs * m : rs;  // sharded grads
  if (zero.gathers_params_per_layer) return reduced + 2 * ag * m;      // forward and backward
  return reduced + ag;                                                 // after the step
}

StageCost stage_cost(const Ctx& c, const PipelineStage& st, const std::vector<LayerCost>& layers,
                     double vocab) {
  StageCost sc;
  double dense = 0, expert = 0, first_extra = 0, last_extra = 0;
  extra_params(c, st, vocab, first_extra, last_extra);
  double bucket_dense = first_extra, bucket_expert = 0;
  const ZeroTraits& zero = c.s.strategy.zero_facts();
  const bool zero3 = zero.gathers_params_per_layer;
  // Bucket size, as the memory model's overheads: DDP's bucket bytes, DeepSpeed's ZeRO-1/2
  // bucket elements.
  const double bucket_params = !zero.reduce_scatters_grads
                                   ? c.s.overheads.ddp_bucket_bytes / c.grad_bytes
                                   : c.s.overheads.zero_bucket_elements;
  for (auto chunk = st.chunks.rbegin(); chunk != st.chunks.rend(); ++chunk) {
    for (int l = chunk->first_layer + chunk->layers - 1; l >= chunk->first_layer; --l) {
      bucket_dense += layers[l].dense_params;
      bucket_expert += layers[l].expert_params;
      dense += layers[l].dense_params;
      expert += layers[l].expert_params;
      if (!zero3 && bucket_dense + bucket_expert >= bucket_params) {
        sc.buckets.push_back({l, (bucket_dense + bucket_expert) * c.grad_bytes,
                              reduce_seconds(c, bucket_dense, bucket_expert)});
        bucket_dense = bucket_expert = 0;
      }
    }
  }
  dense += first_extra + last_extra;
  bucket_dense += last_extra;
  if (!zero3 && bucket_dense + bucket_expert > 0)
    sc.buckets.push_back({-1, (bucket_dense + bucket_expert) * c.grad_bytes,
                          reduce_seconds(c, bucket_dense, bucket_expert)});
  sc.dp_wire_bytes = dp_wire_bytes(c, dense, expert);
  if (zero.gathers_params_after_step)
    sc.param_gather_seconds = coll(c, CollectiveOp::kAllGather, dense * c.param_bytes, c.dp) +
                              coll(c, CollectiveOp::kAllGather, expert * c.param_bytes, c.edp);
  const double shard =
      zero.shards_optimizer ? dense / c.dp.size + expert / c.edp.size : dense + expert;
  const GpuProfile& gpu = c.s.cluster.gpu;
  if (c.s.strategy.offload_optimizer) {
    sc.offload_d2h_seconds = host_copy_seconds(shard * c.grad_bytes, gpu);
    sc.host_optimizer_seconds = shard / gpu.cpu_optimizer_params_per_second;
    sc.offload_h2d_seconds = host_copy_seconds(shard * c.param_bytes, gpu);
  } else {
    sc.optimizer_seconds = optimizer_step_cost(shard, optimizer_bytes_per_param(c), gpu).seconds;
  }
  return sc;
}

Ctx make_ctx(const Scenario& s, const Plan& plan) {
  const auto& t = s.training;
  Ctx c{s, plan, {}, {}, 2, 2, 2, {}, {}, {}, {}, {}, {}, {}};
  c.op = {plan.tp, s.strategy.sp && plan.tp > 1, t.precision};
  c.shape = {double(t.seq_len) / plan.cp, double(t.seq_len), double(t.micro_batch),
             t.flash_attention};
  c.act_bytes = activation_bytes(t.precision);
  c.param_bytes = c.act_bytes;
  c.grad_bytes = t.grad_dtype == GradDtype::kFp32 ? 4 : c.act_bytes;
  const int gpn = plan.gpus_per_node;
  c.tp = place_group(plan.tp, plan.stride_tp, gpn);
  c.cp = place_group(plan.cp, plan.stride_cp, gpn);
  c.ep = place_group(plan.ep, plan.stride_dp, gpn);
  const long long dp_stride =
      plan.cp > 1 ? std::min(plan.stride_cp, plan.stride_dp) : plan.stride_dp;
  c.dp = place_group(plan.dp * plan.cp, dp_stride, gpn);
  c.edp = place_group(plan.dp * plan.cp / plan.ep, plan.stride_dp * plan.ep, gpn);
  // A pipeline spanning nodes has at least one hop between nodes, on every step's critical path.
  c.pp =
      plan.stride_pp * plan.pp > gpn ? GroupPlacement{2, 1} : place_group(2, plan.stride_pp, gpn);
  return c;
}

}  // namespace

WorkCost& WorkCost::operator+=(const WorkCost& o) {
  fwd += o.fwd;
  bwd_input += o.bwd_input;
  bwd_weight += o.bwd_weight;
  model_flops += o.model_flops;
  hardware_flops += o.hardware_flops;
  return *this;
}

StepCosts compute_step_costs(const Scenario& s, const Plan& plan) {
  const Ctx c = make_ctx(s, plan);
  StepCosts out;
  const double vocab = padded_vocab(s.model.vocab, plan.tp);
  out.layers.reserve(std::size_t(s.model.layers));
  int first_of_kind[2] = {-1, -1};  // layers of one kind (dense, MoE) cost the same
  for (int l = 0; l < s.model.layers; ++l) {
    int& first = first_of_kind[s.model.is_moe_layer(l) ? 1 : 0];
    out.layers.push_back(first >= 0 ? out.layers[std::size_t(first)] : layer_cost(c, l));
    if (first < 0) first = l;
  }
  out.embedding = embedding_cost(c, vocab);
  out.output = output_cost(c, vocab);
  const double p2p_bytes = c.shape.seq_local * c.shape.micro_batch * double(s.model.hidden) *
                           c.act_bytes / (c.op.sp ? plan.tp : 1);
  out.p2p_seconds = plan.pp > 1 ? coll(c, CollectiveOp::kSendRecv, p2p_bytes, c.pp) : 0;
  out.stages.reserve(plan.stages.size());
  for (const auto& st : plan.stages) {
    out.stages.push_back(stage_cost(c, st, out.layers, vocab));
    double fwd = (st.has_embedding ? out.embedding.work.fwd.total() : 0) +
                 (st.has_output ? out.output.work.fwd.total() : 0);
    for (const auto& ch : st.chunks)
      for (int l = ch.first_layer; l < ch.first_layer + ch.layers; ++l)
        fwd += out.layers[std::size_t(l)].work.fwd.total();
    out.stages.back().forward_seconds = fwd;
  }
  // The MFU denominator is the peak the GEMMs run at (fp32 training: TF32 where available).
  out.peak_flops_per_gpu = gemm_peak_flops(s.training.precision, s.cluster.gpu);
  return out;
}

}  // namespace shardsim
