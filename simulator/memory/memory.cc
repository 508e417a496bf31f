#include "simulator/memory/memory.h"

#include <fmt/format.h>
#include <algorithm>
#include <numeric>

#include "simulator/core/strings.h"
#include "simulator/memory/activations.h"
#include "simulator/memory/model_states.h"
#include "simulator/memory/overheads.h"
#include "simulator/model/ops.h"
#include "simulator/plan/schedule.h"

namespace shardsim {
namespace {

// Parameter elements on one rank, split by how ZeRO shards them.
struct LocalParams {
  double dense = 0, dense_gemm = 0;    // sharded over DP x CP
  double expert = 0, expert_gemm = 0;  // sharded over DP x CP / EP
  double largest_layer = 0;  // largest gather unit (block, embedding, output) on this rank
  [[nodiscard]] double total() const { return dense + expert; }
};

void add_groups(const std::vector<ParamGroup>& groups, const Plan& plan, LocalParams& lp,
                double& layer_sum) {
  for (const auto& g : groups) {
    double n = g.count;
    if (g.shard == ParamShard::kTensor) n /= plan.tp;
    if (g.shard == ParamShard::kExpert) n /= double(plan.ep) * plan.tp;
    layer_sum += n;
    if (g.shard == ParamShard::kExpert) {
      lp.expert += n;
      if (g.gemm_weight) lp.expert_gemm += n;
    } else {
      lp.dense += n;
      if (g.gemm_weight) lp.dense_gemm += n;
    }
  }
}

LocalParams stage_params(const Scenario& s, const Plan& plan, const PipelineStage& st) {
  const ModelConfig& m = s.model;
  const double vocab = padded_vocab(m.vocab, plan.tp);
  LocalParams lp;
  // Blocks of one kind (dense / MoE) hold the same parameters: split each kind once.
  LocalParams kind[2];
  double kind_total[2] = {-1, -1};
  for (const auto& c : st.chunks) {
    for (int l = c.first_layer; l < c.first_layer + c.layers; ++l) {
      const int k = m.is_moe_layer(l) ? 1 : 0;
      if (kind_total[k] < 0) {
        kind_total[k] = 0;
        add_groups(layer_params(m, l), plan, kind[k], kind_total[k]);
      }
      lp.dense += kind[k].dense;
      lp.dense_gemm += kind[k].dense_gemm;
      lp.expert += kind[k].expert;
      lp.expert_gemm += kind[k].expert_gemm;
      lp.largest_layer = std::max(lp.largest_layer, kind_total[k]);
    }
  }
  // Embedding and output are gathered as units of their own under ZeRO-3 (FSDP wraps them so).
  if (st.has_embedding) {
    double unit = 0;
    add_groups(embedding_params(m, vocab, s.training.seq_len), plan, lp, unit);
    lp.largest_layer = std::max(lp.largest_layer, unit);
  }
  // Tied embeddings with pp > 1: the last stage keeps its own copy of the word embedding.
  if (st.has_output) {
    double unit = 0;
    add_groups(output_params(m, vocab, !m.tied_embeddings || plan.pp > 1), plan, lp, unit);
    lp.largest_layer = std::max(lp.largest_layer, unit);
  }
  return lp;
}

void add_term(RankMemory& r, std::string name, MemoryCategory c, double bytes, std::string note) {
  if (bytes == 0) return;
  r.terms.push_back({std::move(name), c, bytes, std::move(note)});
}

void add_model_states(const Scenario& s, const Plan& plan, const LocalParams& lp, RankMemory& r) {
  const auto& t = s.training;
  const auto& p = s.strategy;
  const auto dense_b = state_bytes_per_param(t.precision, t.grad_dtype, t.optimizer, false);
  const auto gemm_b = state_bytes_per_param(t.precision, t.grad_dtype, t.optimizer, true);
  const double nd = plan.dense_shard_degree(), ne = plan.expert_shard_degree();
  ModelStateBytes states;
  for (const auto& [count, b, shards] :
       {std::tuple{lp.dense - lp.dense_gemm, dense_b, nd}, std::tuple{lp.dense_gemm, gemm_b, nd},
        std::tuple{lp.expert - lp.expert_gemm, dense_b, ne},
        std::tuple{lp.expert_gemm, gemm_b, ne}}) {
    const auto part = zero_sharded_states(count, b, p.zero, shards);
    states.params += part.params;
    states.grads += part.grads;
    states.optimizer += part.optimizer;
  }
  std::string zero = p.zero == 0
                         ? std::string("not sharded (ZeRO-0)")
                         : fmt::format("ZeRO-{} over {} ranks", p.zero, plan.dense_shard_degree());
  if (p.zero > 0 && lp.expert > 0)
    zero += fmt::format(" ({} for experts)", plan.expert_shard_degree());
  std::string b = fmt::format("{} B/param params, {} B grads, {} B optimizer", dense_b.params,
                              dense_b.grads, dense_b.optimizer);
  if (t.precision == Dtype::kFp8)
    b += fmt::format(" ({} B/param params for matmul weights: FP8 copy and transpose)",
                     gemm_b.params);
  if (p.offload_optimizer) {
    // ZeRO-Offload: optimizer states and the FP32 gradient partition live in host memory; with
    // ZeRO >= 2 the GPU keeps only the low-precision gradient buckets (overheads).
    const double fp32_grads = (lp.dense / nd + lp.expert / ne) * 4;  // ZeRO >= 1 (validated)
    r.host_bytes += states.optimizer + fp32_grads;
    if (p.zero_facts().shards_grads) states.grads = 0;
    states.optimizer = 0;
  }
  if (p.offload_params) {
    r.host_bytes += states.params;
    states.params = 0;
  }
  add_term(r, "params", MemoryCategory::kParams, states.params, zero + "; " + b);
  add_term(r, "grads", MemoryCategory::kGrads, states.grads, zero);
  add_term(r, "optimizer", MemoryCategory::kOptimizer, states.optimizer,
           fmt::format("{} ({})", optimizer_name(t.optimizer), zero));
}

// Saved bytes of one micro-batch of each of the stage's chunks (blocks of one kind, dense or
// MoE, save the same tensors: each kind is costed once), and the largest block without
// recomputation (full recomputation's working set).
struct ChunkActivations {
  std::vector<double> layers;  // per chunk
  double largest_block = 0;
};

ChunkActivations chunk_activations(const Scenario& s, const PipelineStage& st,
                                   const ActivationOptions& o, const OpShape& shape) {
  const auto& m = s.model;
  ActivationOptions no_recompute = o;
  no_recompute.recompute = Recompute::kNone;
  double kind_bytes[2] = {-1, -1}, kind_full[2] = {0, 0};
  ChunkActivations out;
  for (const auto& c : st.chunks) {
    double bytes = 0;
    for (int l = c.first_layer; l < c.first_layer + c.layers; ++l) {
      const int kind = m.is_moe_layer(l) ? 1 : 0;
      if (kind_bytes[kind] < 0) {
        const auto ops = layer_ops(m, l, shape);
        kind_bytes[kind] =
            layer_activation_bytes(ops, shape.seq_local * shape.micro_batch, double(m.hidden), o);
        kind_full[kind] = saved_bytes(ops, no_recompute);
      }
      bytes += kind_bytes[kind];
      out.largest_block = std::max(out.largest_block, kind_full[kind]);
    }
    out.layers.push_back(bytes);
  }
  return out;
}

// Peak live activations: the schedule's program (plan/schedule.h) is walked with each chunk's
// bytes, the embedding's on the first chunk of stage 0 and the output layer's on the last chunk
// of the last stage, so each term is counted with its own chunk's live micro-batches.
void add_activations(const Scenario& s, const Plan& plan, const PipelineStage& st, RankMemory& r) {
  const auto& m = s.model;
  const auto& t = s.training;
  const ActivationOptions o{plan.tp, s.strategy.sp && plan.tp > 1, s.strategy.recompute,
                            t.precision};
  const OpShape shape{double(t.seq_len) / plan.cp, double(t.seq_len), double(t.micro_batch),
                      t.flash_attention};
  const double tokens = shape.seq_local * shape.micro_batch;
  const double vocab = padded_vocab(m.vocab, plan.tp);
  const ChunkActivations chunks = chunk_activations(s, st, o, shape);
  const double embedding = st.has_embedding ? saved_bytes(embedding_ops(m, vocab, shape), o) : 0;
  const double output = st.has_output ? saved_bytes(output_ops(m, vocab, shape), o) : 0;
  // The output layer's tensors (mostly the fp32 logits) serve the loss and the backward-input
  // pass, which on the last stage follows its forward at once, also under the zero-bubble
  // schedules that keep other activations until W: one micro-batch live.
  const bool zb = plan.schedule_facts().split_weight_grad;
  std::vector<double> weight = chunks.layers;
  weight.front() += embedding;
  if (!zb) weight.back() += output;
  const auto live =
      peak_live_per_chunk(plan.schedule, st.index, plan.pp, plan.vpp, plan.micro_batches, weight);
  double layers = 0, live_total = 0;
  for (std::size_t c = 0; c < live.size(); ++c) {
    layers += double(live[c]) * chunks.layers[c];
    live_total += double(live[c]);
  }
  r.in_flight_microbatches = live_total / plan.vpp;
  add_term(
      r, "activations.layers", MemoryCategory::kActivations, layers,
      fmt::format("{} layers, {} chunk micro-batches live at the peak ({}), {} per "
                  "micro-batch of the stage",
                  st.layers(), live_total, schedule_name(plan.schedule),
                  format_gib(std::accumulate(chunks.layers.begin(), chunks.layers.end(), 0.0))));
  if (s.strategy.recompute == Recompute::kFull && st.layers() > 0)
    add_term(r, "activations.recompute_working_set", MemoryCategory::kActivations,
             chunks.largest_block, "one block's activations rebuilt during its backward pass");
  if (st.has_embedding)
    add_term(r, "activations.embedding", MemoryCategory::kActivations,
             embedding * double(live.front()), "token ids (int64) and embedding dropout mask");
  if (st.has_output) {
    add_term(r, "activations.output", MemoryCategory::kActivations,
             output * double(zb ? std::min<std::int64_t>(1, live.back()) : live.back()),
             "final norm and output-projection inputs, fp32 logits for the loss");
    // The low-precision logits the output GEMM writes before the fp32 loss, one micro-batch.
    add_term(r, "activations.logits_buffer", MemoryCategory::kActivations,
             tokens * vocab / plan.tp * saved_bytes_per_element(ActKind::kActivation, t.precision),
             "output-projection result before its fp32 cast (one micro-batch)");
  }
}

void sum_terms(RankMemory& r) {
  for (const auto& t : r.terms) {
    double* slot = nullptr;
    switch (t.category) {
      case MemoryCategory::kParams:
        slot = &r.params_bytes;
        break;
      case MemoryCategory::kGrads:
        slot = &r.grads_bytes;
        break;
      case MemoryCategory::kOptimizer:
        slot = &r.optimizer_bytes;
        break;
      case MemoryCategory::kActivations:
        slot = &r.activations_bytes;
        break;
      case MemoryCategory::kOverhead:
        slot = &r.overhead_bytes;
        break;
    }
    *slot += t.bytes;
  }
  r.total_bytes =
      r.params_bytes + r.grads_bytes + r.optimizer_bytes + r.activations_bytes + r.overhead_bytes;
}

RankMemory estimate_rank(const Scenario& s, const Plan& plan, const PipelineStage& st) {
  RankMemory r;
  r.pp_stage = st.index;
  r.layers = st.layers();
  const LocalParams lp = stage_params(s, plan, st);
  r.local_params = lp.total();
  add_model_states(s, plan, lp, r);
  add_activations(s, plan, st, r);
  double activations = 0;
  for (const auto& t : r.terms)
    if (t.category == MemoryCategory::kActivations) activations += t.bytes;
  bool moe_layers = false;
  for (const auto& c : st.chunks)
    for (int l = c.first_layer; l < c.first_layer + c.layers; ++l)
      moe_layers = moe_layers || s.model.is_moe_layer(l);
  for (auto& t : overhead_terms(s, plan, {lp.total(), lp.largest_layer, activations, moe_layers}))
    add_term(r, std::move(t.name), MemoryCategory::kOverhead, t.bytes, std::move(t.note));
  sum_terms(r);
  return r;
}

// Host memory of the busiest node: the sum over its GPUs of their stage's offloaded bytes. Global
// rank r sits on node r / gpus_per_node and in pipeline stage (r / stride_pp) % pp; the layout
// repeats every stride_pp * pp ranks, so the nodes covering one period (plus one) suffice.
double busiest_node_host_bytes(const Plan& plan, const std::vector<double>& host) {
  const long long gpn = plan.gpus_per_node;
  const long long period = plan.stride_pp * plan.pp;
  // Node n starts at rank n*gpn; starts repeat modulo `period` every period/gcd(period, gpn)
  // nodes.
  const long long nodes = std::min<long long>(plan.gpus / gpn, period / std::gcd(period, gpn));
  double busiest = 0;
  for (long long n = 0; n < nodes; ++n) {
    double sum = 0;
    for (long long r = n * gpn; r < (n + 1) * gpn; ++r)
      sum += host[std::size_t((r / plan.stride_pp) % plan.pp)];
    busiest = std::max(busiest, sum);
  }
  return busiest;
}

// ZeRO-3 must hold its gathered units and prefetch bucket next to the sharded states and the
// fixed overheads; when even that exceeds the GPU, no micro-batch size can make the plan run.
void check_zero3_prefetch(MemoryEstimate& e) {
  for (const auto& r : e.ranks) {
    double gather = 0, fixed = r.params_bytes + r.grads_bytes + r.optimizer_bytes;
    for (const auto& t : r.terms) {
      if (t.name == "overhead.zero3_buffers")
        gather = t.bytes;
      else if (t.category == MemoryCategory::kOverhead && t.name != "overhead.fragmentation")
        fixed += t.bytes;
    }
    if (gather > 0 && gather + fixed > e.capacity_bytes) {
      e.infeasible.push_back(
          {"zero3_prefetch", "/overheads/zero3_prefetch_elements",
           fmt::format("stage {}: ZeRO-3 gather buffers of {} do not fit beside {} of sharded "
                       "states and fixed overheads in {}",
                       r.pp_stage, format_gib(gather), format_gib(fixed),
                       format_gib(e.capacity_bytes))});
      return;
    }
  }
}

}  // namespace

std::string category_name(MemoryCategory c) {
  switch (c) {
    case MemoryCategory::kParams:
      return "params";
    case MemoryCategory::kGrads:
      return "grads";
    case MemoryCategory::kOptimizer:
      return "optimizer";
    case MemoryCategory::kActivations:
      return "activations";
    case MemoryCategory::kOverhead:
      return "overhead";
  }
  return "overhead";
}

MemoryEstimate estimate_memory(const Scenario& s, const Plan& plan) {
  MemoryEstimate e;
  e.parameters = count_parameters(s.model, s.training.seq_len);
  e.capacity_bytes = s.cluster.gpu.memory_bytes;
  std::vector<double> host(plan.stages.size(), 0);
  for (const auto& st : plan.stages) {
    e.ranks.push_back(estimate_rank(s, plan, st));
    const auto& r = e.ranks.back();
    if (r.total_bytes > e.peak_bytes) {
      e.peak_bytes = r.total_bytes;
      e.peak_stage = r.pp_stage;
    }
    host[std::size_t(r.pp_stage)] = r.host_bytes;
  }
  e.host_bytes_per_node = busiest_node_host_bytes(plan, host);
  e.fits = e.peak_bytes <= e.capacity_bytes;
  if (!e.fits) {
    e.reason = fmt::format("pipeline stage {} needs {} ({:.1f} GB), the GPU has {} ({:.1f} GB)",
                           e.peak_stage, format_gib(e.peak_bytes), e.peak_bytes / 1e9,
                           format_gib(e.capacity_bytes), e.capacity_bytes / 1e9);
    e.infeasible.push_back({"memory", "/cluster/gpu", e.reason});
  }
  check_zero3_prefetch(e);
  return e;
}

}  // namespace shardsim
