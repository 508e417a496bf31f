#include "simulator/cost/step_costs.h"

#include <algorithm>

#include "simulator/cost/step_costs_detail.h"
#include "simulator/model/params.h"

namespace shardsim {
namespace step_costs_detail {

double coll(const Ctx& c, CollectiveOp op, double bytes, const GroupPlacement& g) {
  if (g.size <= 1 || bytes <= 0) return 0;
  auto same = [&](const Ctx::Memo& e) {
    return e.op == op && e.bytes == bytes && e.size == g.size &&
           e.ranks_per_node == g.ranks_per_node;
  };
  if (c.last_hit < c.memo_size && same(c.memo[c.last_hit])) return c.memo[c.last_hit].seconds;
  for (std::size_t i = 0; i < c.memo_size; ++i)
    if (same(c.memo[i])) {
      c.last_hit = i;
      return c.memo[i].seconds;
    }
  const double t = collective_cost(op, bytes, g, c.s.cluster.network).seconds;
  if (c.memo_size < c.memo.size()) c.memo[c.memo_size++] = {op, bytes, g.size, g.ranks_per_node, t};
  return t;
}

Ctx make_ctx(const Scenario& s, const Plan& plan) {
  const auto& t = s.training;
  Ctx c{s, plan, {}, {}, 2, 2, 2, {}, {}, {}, {}, {}, {}, {}};
  c.zero = &s.strategy.zero_facts();
  c.op = {plan.tp, s.strategy.sp && plan.tp > 1, t.precision, t.tf32};
  c.op.attention_kernel = t.attention_kernel;
  c.op.cross_entropy =
      s.effects.cross_entropy_traffic ? t.cross_entropy : CrossEntropyKernel::kStreaming;
  c.shape = op_shape(s, plan);
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

// Stages whose costs are equal by construction: the same embedding/output role, the same chunk
// sizes and, position by position, the same kind of block (block_kind). stage_cost
// reads only those (through per-kind layer costs), so b's StageCost is a's with every bucket's
// trigger layer moved from a's chunk to the same place in b's.
bool same_stage_shape(const ModelConfig& m, const OpShape& shape, const PipelineStage& a,
                      const PipelineStage& b) {
  if (a.has_embedding != b.has_embedding || a.has_output != b.has_output ||
      a.chunks.size() != b.chunks.size())
    return false;
  for (std::size_t c = 0; c < a.chunks.size(); ++c) {
    const StageChunk &x = a.chunks[c], &y = b.chunks[c];
    if (x.layers != y.layers) return false;
    for (int k = 0; k < x.layers; ++k)
      if (block_kind(m, x.first_layer + k, shape) != block_kind(m, y.first_layer + k, shape))
        return false;
  }
  return true;
}

StageCost moved_stage_cost(StageCost sc, const PipelineStage& from, const PipelineStage& to) {
  for (Bucket& b : sc.buckets) {
    if (b.trigger_layer < 0) continue;
    for (std::size_t c = 0; c < from.chunks.size(); ++c) {
      const StageChunk& f = from.chunks[c];
      if (b.trigger_layer >= f.first_layer && b.trigger_layer < f.first_layer + f.layers) {
        b.trigger_layer += to.chunks[c].first_layer - f.first_layer;
        break;
      }
    }
  }
  return sc;
}

}  // namespace step_costs_detail

void StepCosts::set_layers(std::vector<LayerCost> per_layer) {
  kinds = std::move(per_layer);
  layer_kind.resize(kinds.size());
  for (std::size_t l = 0; l < kinds.size(); ++l) layer_kind[l] = std::uint32_t(l);
}

WorkCost& WorkCost::operator+=(const WorkCost& o) {
  fwd += o.fwd;
  bwd_input += o.bwd_input;
  bwd_weight += o.bwd_weight;
  model_flops += o.model_flops;
  hardware_flops += o.hardware_flops;
  host_fwd += o.host_fwd;
  host_bwd_input += o.host_bwd_input;
  host_bwd_weight += o.host_bwd_weight;
  return *this;
}

StepCosts compute_step_costs(const Scenario& s, const Plan& plan, KindCostCache* cache) {
  using namespace step_costs_detail;
  const Ctx c = make_ctx(s, plan);
  StepCosts out;
  const double vocab = padded_vocab(s.model.vocab, plan.tp);
  KindCosts computed;
  const KindCosts* kinds = nullptr;
  if (cache) {
    const KindCostKey key = kind_cost_key(c);
    kinds = cache->find(key, s.model, s.cluster.gpu);
    if (!kinds) kinds = &cache->insert(key, kind_costs(c, vocab));
  } else {
    computed = kind_costs(c, vocab);
    kinds = &computed;
  }
  out.layer_kind.resize(std::size_t(s.model.layers));
  constexpr int kKinds = kBlockKinds;
  out.kinds.reserve(kKinds);
  int kind_index[kKinds] = {-1, -1, -1, -1};  // layers of one kind cost the same
  for (int l = 0; l < s.model.layers; ++l) {
    const int kind = block_kind(s.model, l, c.shape);
    int& k = kind_index[kind];
    if (k < 0) {
      k = int(out.kinds.size());
      out.kinds.push_back(layer_cost(c, l, kinds->block[kind]));
    }
    out.layer_kind[std::size_t(l)] = std::uint32_t(k);
  }
  out.embedding = embedding_cost(c, kinds->embedding);
  out.output = output_cost(c, kinds->output);
  const double p2p_bytes = c.shape.seq_local * c.shape.micro_batch * double(s.model.hidden) *
                           c.act_bytes / (c.op.sp ? plan.tp : 1);
  out.p2p_seconds = plan.pp > 1 ? coll(c, CollectiveOp::kSendRecv, p2p_bytes, c.pp) : 0;
  // One forward of each kind of block (the same for every block of the kind).
  double kind_fwd[kKinds] = {};
  for (int k = 0; k < kKinds; ++k)
    if (kind_index[k] >= 0) kind_fwd[k] = out.kinds[std::size_t(kind_index[k])].work.fwd.total();
  out.stages.reserve(plan.stages.size());
  std::vector<const PipelineStage*> costed;  // stages of distinct shape, costed in full
  costed.reserve(plan.stages.size());
  for (const auto& st : plan.stages) {
    // Middle stages usually repeat one shape: cost it once (bit-identical, see same_stage_shape).
    const PipelineStage* twin = nullptr;
    for (const PipelineStage* a : costed)
      if (same_stage_shape(s.model, c.shape, *a, st)) twin = a;
    if (!twin) costed.push_back(&st);
    out.stages.push_back(twin ? moved_stage_cost(out.stages[std::size_t(twin->index)], *twin, st)
                              : stage_cost(c, st, out));
    double fwd = (st.has_embedding ? out.embedding.work.fwd.total() : 0) +
                 (st.has_output ? out.output.work.fwd.total() : 0);
    for (const auto& ch : st.chunks)
      for (int l = ch.first_layer; l < ch.first_layer + ch.layers; ++l)
        fwd += kind_fwd[block_kind(s.model, l, c.shape)];
    out.stages.back().forward_seconds = fwd;
  }
  // The MFU denominator is the peak the GEMMs run at (fp32 training: TF32's where the run uses
  // it and the GPU has it, else FP32's).
  out.peak_flops_per_gpu = gemm_peak_flops(
      gemm_dtype(s.training.precision, s.training.tf32, s.cluster.gpu.peak), s.cluster.gpu);
  out.step_host_seconds = s.framework.step_overhead_s;
  out.overlap_slowdown = s.cluster.gpu.compute.overlap_compute_slowdown;
  return out;
}

}  // namespace shardsim
