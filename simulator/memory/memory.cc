#include "simulator/memory/memory.h"

#include <fmt/format.h>
#include <algorithm>
#include <numeric>

#include "simulator/core/strings.h"
#include "simulator/memory/activations.h"
#include "simulator/memory/model_states.h"
#include "simulator/memory/node_sums.h"
#include "simulator/memory/overheads.h"
#include "simulator/memory/plan_facts.h"
#include "simulator/model/ops.h"
#include "simulator/plan/schedule.h"

namespace shardsim {
namespace {

using memory_detail::KindFacts;
using memory_detail::LocalParams;
using memory_detail::plan_facts;
using memory_detail::PlanFacts;
using memory_detail::stage_params;

// Collects one rank's terms: the category sums always (in the order the terms come, as the
// report's sums), the terms themselves with their notes only in full detail.
struct RankTerms {
  RankMemory& r;
  bool full = true;
  double zero3_gather = 0;  // overhead.zero3_buffers
  double fixed = 0;         // model states and overheads other than gathers and fragmentation

  template <class Note>
  void add(const char* name, MemoryCategory c, double bytes, Note&& note) {
    if (bytes == 0) return;
    category(c) += bytes;
    if (full) r.terms.push_back({name, c, bytes, note()});
  }
  double& category(MemoryCategory c) {
    switch (c) {
      case MemoryCategory::kParams:
        return r.params_bytes;
      case MemoryCategory::kGrads:
        return r.grads_bytes;
      case MemoryCategory::kOptimizer:
        return r.optimizer_bytes;
      case MemoryCategory::kActivations:
        return r.activations_bytes;
      case MemoryCategory::kOverhead:
        break;
    }
    return r.overhead_bytes;
  }
};

auto text(const char* note) {
  return [note] { return std::string(note); };
}

void add_model_states(const Scenario& s, const Plan& plan, const LocalParams& lp, RankTerms& out) {
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
  auto zero = [&] {
    std::string z = !p.zero_facts().shards_optimizer
                        ? std::string("not sharded (ZeRO-0)")
                        : fmt::format("ZeRO-{} over {} ranks", p.zero, plan.dense_shard_degree());
    if (p.zero_facts().shards_optimizer && lp.expert > 0)
      z += fmt::format(" ({} for experts)", plan.expert_shard_degree());
    return z;
  };
  auto per_param = [&] {
    std::string b = fmt::format("{} B/param params, {} B grads, {} B optimizer", dense_b.params,
                                dense_b.grads, dense_b.optimizer);
    if (t.precision == Dtype::kFp8)
      b += fmt::format(
          " ({} B/param params for the FP8 layers' matmul weights: FP8 copy and transpose)",
          gemm_b.params);
    return b;
  };
  RankMemory& r = out.r;
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
  out.add("params", MemoryCategory::kParams, states.params,
          [&] { return zero() + "; " + per_param(); });
  out.add("grads", MemoryCategory::kGrads, states.grads, zero);
  // DeepSpeed's BF16 optimizer (training.grad_accumulation_cast separate, where it applies:
  // separate_grad_cast in scenario.h). Its update_hp_grads adds each bf16
  // .grad into the FP32 buffer and, as the pipeline engine calls it (clear_lp_grads=False), leaves
  // the bf16 gradient allocated until clear_lp_grads at the start of the next backward pass, the
  // next step's after the last micro-batch (deepspeed/runtime/bf16_optimizer.py and
  // pipe/engine.py at 93e9307d6). So the 16-bit gradients of every parameter on the rank live
  // through the forward passes and the optimizer step beside the FP32 ones: 2 B per parameter,
  // not sharded (the optimizer shards its FP32 states only). The FP32 temporary of .to() (one
  // tensor at a time) is not counted.
  if (separate_grad_cast(s))
    out.add("grads.bf16_kept", MemoryCategory::kGrads, lp.total() * 2, [] {
      return std::string(
          "DeepSpeed's BF16 optimizer keeps each 16-bit gradient until the next backward pass "
          "(training.grad_accumulation_cast separate): 2 B/param, not sharded");
    });
  out.add("optimizer", MemoryCategory::kOptimizer, states.optimizer,
          [&] { return fmt::format("{} ({})", optimizer_name(t.optimizer), zero()); });
}

// Saved bytes of one micro-batch of each of the stage's chunks (blocks of one kind save the same
// tensors), and the largest block without recomputation (full recomputation's working set).
// `layers` is the caller's buffer, one entry per chunk.
double chunk_activations(const Scenario& s, const PlanFacts& f, const PipelineStage& st,
                         std::vector<double>& layers) {
  double largest_block = 0;
  layers.clear();
  for (const auto& c : st.chunks) {
    double bytes = 0;
    for (int l = c.first_layer; l < c.first_layer + c.layers; ++l) {
      const KindFacts& k = f.kind[s.model.is_moe_layer(l) ? 1 : 0];
      bytes += k.saved;
      largest_block = std::max(largest_block, k.saved_full);
    }
    layers.push_back(bytes);
  }
  return largest_block;
}

// Peak live activations: the schedule's program (plan/schedule.h) is walked with each chunk's
// bytes, the embedding's on the first chunk of stage 0 and the output layer's on the last chunk
// of the last stage, so each term is counted with its own chunk's live micro-batches.
// Per-chunk buffers reused from stage to stage.
struct ChunkBuffers {
  std::vector<double> layers, weight;
};

void add_activations(const Scenario& s, const Plan& plan, const PlanFacts& f,
                     const PipelineStage& st, ChunkBuffers& buf, RankTerms& out) {
  const auto& t = s.training;
  const double tokens = f.shape.seq_local * f.shape.micro_batch;
  std::vector<double>& chunks = buf.layers;
  std::vector<double>& weight = buf.weight;
  const double largest_block = chunk_activations(s, f, st, chunks);
  const double embedding = st.has_embedding ? f.embedding_saved : 0;
  const double output = st.has_output ? f.output_saved : 0;
  // The output layer's tensors (mostly the fp32 logits) serve the loss and the backward-input
  // pass, which on the last stage follows its forward at once, also under the zero-bubble
  // schedules that keep other activations until W: one micro-batch live.
  const bool zb = plan.schedule_facts().split_weight_grad;
  weight = chunks;
  weight.front() += embedding;
  if (!zb) weight.back() += output;
  const auto live =
      peak_live_per_chunk(plan.schedule, st.index, plan.pp, plan.vpp, plan.micro_batches, weight);
  double layers = 0, live_total = 0;
  for (std::size_t c = 0; c < live.size(); ++c) {
    layers += double(live[c]) * chunks[c];
    live_total += double(live[c]);
  }
  out.r.in_flight_microbatches = live_total / plan.vpp;
  out.add("activations.layers", MemoryCategory::kActivations, layers, [&] {
    return fmt::format(
        "{} layers, {} chunk micro-batches live at the peak ({}), {} per "
        "micro-batch of the stage",
        st.layers(), live_total, schedule_name(plan.schedule),
        format_gib(std::accumulate(chunks.begin(), chunks.end(), 0.0)));
  });
  if (s.strategy.recompute == Recompute::kFull && st.layers() > 0)
    out.add("activations.recompute_working_set", MemoryCategory::kActivations, largest_block,
            text("one block's activations rebuilt during its backward pass"));
  if (st.has_embedding)
    out.add("activations.embedding", MemoryCategory::kActivations, embedding * double(live.front()),
            text("token ids (int64) and embedding dropout mask"));
  if (st.has_output) {
    const bool fp32_loss = t.cross_entropy != CrossEntropyKernel::kFused;
    out.add("activations.output", MemoryCategory::kActivations,
            output * double(zb ? std::min<std::int64_t>(1, live.back()) : live.back()),
            text(fp32_loss ? "final norm and output-projection inputs, fp32 logits for the loss"
                           : "final norm and output-projection inputs, logits for the fused loss"));
    // The low-precision logits the output GEMM writes before the fp32 loss, one micro-batch (a
    // fused loss keeps those logits themselves, counted above). In fp32 training the GEMM writes
    // fp32 logits and the cast (`.float()`) returns the same tensor: no second copy (found by
    // review, 2026-11-29: fp32 counted 4·s·b·V/t bytes twice).
    const double logits_bytes = saved_bytes_per_element(ActKind::kActivation, t.precision);
    if (fp32_loss && logits_bytes < 4)
      out.add("activations.logits_buffer", MemoryCategory::kActivations,
              tokens * f.vocab / plan.tp * logits_bytes,
              text("output-projection result before its fp32 cast (one micro-batch)"));
  }
}

void add_overheads(const Scenario& s, const Plan& plan, const PipelineStage& st,
                   const LocalParams& lp, RankTerms& out) {
  RankMemory& r = out.r;
  bool moe_layers = false;
  for (const auto& c : st.chunks)
    for (int l = c.first_layer; l < c.first_layer + c.layers; ++l)
      moe_layers = moe_layers || s.model.is_moe_layer(l);
  out.fixed = r.params_bytes + r.grads_bytes + r.optimizer_bytes;
  const RankFootprint footprint{lp.total(), lp.largest_layer, lp.largest_window,
                                r.activations_bytes, moe_layers};
  for (const OverheadTerm& t : overhead_terms(s, plan, footprint, out.full)) {
    if (t.bytes == 0) continue;
    out.add(t.name.data(), MemoryCategory::kOverhead, t.bytes, [&] { return t.note; });
    if (t.name == "overhead.zero3_buffers")
      out.zero3_gather = t.bytes;
    else if (t.name != "overhead.fragmentation")
      out.fixed += t.bytes;
  }
}

// One stage's rank, with what check_zero3_prefetch compares.
struct StageMemory {
  RankMemory rank;
  double gather = 0, fixed = 0;
};

StageMemory estimate_rank(const Scenario& s, const Plan& plan, const PlanFacts& f,
                          const PipelineStage& st, bool full, ChunkBuffers& buf) {
  StageMemory out;
  RankMemory& r = out.rank;
  r.pp_stage = st.index;
  r.layers = st.layers();
  const LocalParams lp = stage_params(s, plan, f, st);
  r.local_params = lp.total();
  RankTerms terms{r, full};
  add_model_states(s, plan, lp, terms);
  add_activations(s, plan, f, st, buf, terms);
  add_overheads(s, plan, st, lp, terms);
  r.total_bytes =
      r.params_bytes + r.grads_bytes + r.optimizer_bytes + r.activations_bytes + r.overhead_bytes;
  out.gather = terms.zero3_gather;
  out.fixed = terms.fixed;
  return out;
}

// Host memory of the busiest node: the sum over its GPUs of their stage's offloaded bytes. Global
// rank r sits on node r / gpus_per_node and in pipeline stage (r / stride_pp) % pp.
double busiest_node_host_bytes(const Plan& plan, const std::vector<RankMemory>& ranks) {
  if (std::all_of(ranks.begin(), ranks.end(),
                  [](const RankMemory& r) { return r.host_bytes == 0; }))
    return 0;
  std::vector<double> per_stage(static_cast<std::size_t>(plan.pp));
  for (std::size_t s = 0; s < per_stage.size(); ++s) per_stage[s] = ranks[s].host_bytes;
  return busiest_node_sum(per_stage, plan.stride_pp, plan.gpus_per_node,
                          plan.gpus / plan.gpus_per_node);
}

// ZeRO-3 must hold its gathered units and prefetch bucket next to the sharded states and the
// fixed overheads; when even that exceeds the GPU, no micro-batch size can make the plan run.
// `gather` and `fixed` per stage, from estimate_rank.
void check_zero3_prefetch(MemoryEstimate& e, const std::vector<StageMemory>& stages) {
  for (std::size_t i = 0; i < e.ranks.size(); ++i) {
    const double gather = stages[i].gather, fixed = stages[i].fixed;
    if (gather > 0 && gather + fixed > e.capacity_bytes) {
      e.infeasible.push_back(
          {"zero3_prefetch", "/overheads/zero3_prefetch_elements",
           fmt::format("stage {}: ZeRO-3 gather buffers of {} do not fit beside {} of sharded "
                       "states and fixed overheads in {}",
                       e.ranks[i].pp_stage, format_gib(gather), format_gib(fixed),
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

double largest_stage_local_parameters(const Scenario& s, const Plan& plan) {
  const PlanFacts f = plan_facts(s, plan);
  double largest = 0;
  for (const auto& st : plan.stages)
    largest = std::max(largest, stage_params(s, plan, f, st).total());
  return largest;
}

MemoryEstimate estimate_memory(const Scenario& s, const Plan& plan, MemoryDetail detail,
                               PlanFactsCache* cache) {
  const bool full = detail == MemoryDetail::kFull;
  MemoryEstimate e;
  if (full) e.parameters = count_parameters(s.model, s.training.seq_len);
  e.capacity_bytes = s.cluster.gpu.memory_bytes;
  PlanFacts computed;
  const PlanFacts* facts = nullptr;
  if (cache) {
    const memory_detail::PlanFactsKey key = memory_detail::plan_facts_key(s, plan);
    facts = cache->find(key, s.model);
    if (!facts) facts = &cache->insert(key, plan_facts(s, plan));
  } else {
    computed = plan_facts(s, plan);
    facts = &computed;
  }
  const PlanFacts& f = *facts;
  const std::size_t n = plan.stages.size();
  std::vector<StageMemory> stages(n);  // gather and fixed only (ranks go to e.ranks)
  ChunkBuffers buf;
  e.ranks.reserve(n);
  for (const auto& st : plan.stages) {
    const auto i = std::size_t(st.index);
    StageMemory m = estimate_rank(s, plan, f, st, full, buf);
    stages[i].gather = m.gather;
    stages[i].fixed = m.fixed;
    e.ranks.push_back(std::move(m.rank));
    const auto& r = e.ranks.back();
    if (r.total_bytes > e.peak_bytes) {
      e.peak_bytes = r.total_bytes;
      e.peak_stage = r.pp_stage;
    }
  }
  e.host_bytes_per_node = busiest_node_host_bytes(plan, e.ranks);
  // Offloaded states past the node's host memory (found by review, 2026-11-29: 16.5 TiB per node
  // was reported feasible). Unchecked when the scenario does not give it.
  if (const double host = s.cluster.host_memory_bytes; host > 0 && e.host_bytes_per_node > host)
    e.infeasible.push_back({"host_memory", "/cluster/host_memory_bytes",
                            "the busiest node's offloaded states need " +
                                format_gib(e.host_bytes_per_node) + " (" +
                                format_fixed(e.host_bytes_per_node / 1e9, 1) +
                                " GB) of host memory, the node has " + format_gib(host) + " (" +
                                format_fixed(host / 1e9, 1) + " GB, cluster.host_memory_bytes)"});
  e.fits = e.peak_bytes <= e.capacity_bytes;
  if (!e.fits) {
    // "pipeline stage {} needs {} ({:.1f} GB), the GPU has {} ({:.1f} GB)", without fmt's
    // general float formatting (a search formats this for every plan that does not fit)
    e.reason = "pipeline stage " + std::to_string(e.peak_stage) + " needs " +
               format_gib(e.peak_bytes) + " (" + format_fixed(e.peak_bytes / 1e9, 1) +
               " GB), the GPU has " + format_gib(e.capacity_bytes) + " (" +
               format_fixed(e.capacity_bytes / 1e9, 1) + " GB)";
    e.infeasible.push_back({"memory", "/cluster/gpu", e.reason});
  }
  check_zero3_prefetch(e, stages);
  return e;
}

}  // namespace shardsim
