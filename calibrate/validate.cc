// Measurement and prediction of `shardsim validate` (contracts in validate.h).
#include "calibrate/validate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>

#include "calibrate/linear_fit.h"
#include "kernels/common/sweep_plan.h"
#include "kernels/common/timing_loop.h"
#include "simulator/cost/collective.h"
#include "simulator/cost/compute.h"
#include "simulator/evaluate/evaluate.h"
#include "simulator/scenario/load.h"

namespace shardsim::calibrate {
namespace {

using kernels::BackendKind;
using kernels::GemmShape;
using kernels::MemoryShape;
using nlohmann::json;

constexpr std::int64_t kKiB = 1024;

// Sizes measured now. Held-out sizes sit between or beside the sweep's (validate.h); the fitted
// ones repeat sweep sizes, to show the interpolation error apart from the extrapolation error.
kernels::SweepPlan item_plan(bool quick, BackendKind kind) {
  kernels::SweepPlan p;
  p.backend = kind;
  p.gemm_dtypes = {"fp32"};
  p.loop.warmup_runs = 2;
  p.loop.min_repetitions = quick ? 5 : 9;
  p.loop.max_repetitions = quick ? 15 : 30;
  p.loop.min_total_s = quick ? 0.05 : 0.2;
  if (kind == BackendKind::kCuda) {
    // The cpu list at the GPU sweep's scale (make_sweep_plan: 4096 tokens, hidden 1024-8192,
    // head_dim 64 and 128, power-of-two squares, 1 KiB-1 GiB collectives): hidden 3072, a
    // 2048-token attention head, a 3072 square, a 6144 x 4096 memory shape and 3 / 96 MiB
    // all-reduces are held out; the hidden 4096 GEMMs, 4096 squares, the 4096 x 4096 memory shape
    // and a 4 MiB all-reduce repeat sweep sizes.
    p.gemm_shapes = {
        {2048, 2048, 64, false, true, {"attention_scores"}},
        {2048, 64, 2048, false, false, {"attention_values"}},
        {3072, 3072, 3072, false, false, {"square"}},
        {4096, 9216, 3072, false, false, {"h3072_qkv_fwd"}},
        {4096, 3072, 12288, false, false, {"h3072_fc2_fwd"}},
        {3072, 12288, 4096, true, false, {"h3072_fc1_bwd_weight"}},
        {4096, 12288, 4096, false, false, {"h4096_qkv_fwd"}},
        {4096, 4096, 16384, false, false, {"h4096_fc2_fwd"}},
        {4096, 12288, 4096, true, false, {"h4096_qkv_bwd_weight"}},
        {4096, 4096, 4096, false, false, {"square"}},
    };
    p.memory_shapes = {{6144, 4096}, {4096, 4096}};
    p.collective_bytes = {3 * kKiB * kKiB, 4 * kKiB * kKiB, 96 * kKiB * kKiB};
    return p;
  }
  p.gemm_shapes = {
      {256, 256, 64, false, true, {"attention_scores"}},  // Q.K^T of one head, s 256, d 64
      {256, 64, 256, false, false, {"attention_values"}},
      {384, 384, 384, false, false, {"square"}},
      {256, 768, 384, false, false, {"h384_qkv_fwd"}},
      {256, 384, 1536, false, false, {"h384_fc2_fwd"}},
      {384, 1536, 256, true, false, {"h384_fc1_bwd_weight"}},
      {256, 1536, 512, false, false, {"h512_qkv_fwd"}},
      {256, 512, 2048, false, false, {"h512_fc2_fwd"}},
      {512, 1536, 256, true, false, {"h512_qkv_bwd_weight"}},
      {256, 256, 256, false, false, {"square"}},
  };
  p.memory_shapes = {{256, 1024}, {512, 1024}};
  if (!quick) p.memory_shapes.push_back({1024, 1024});
  p.collective_bytes = {12 * kKiB, 192 * kKiB, 256 * kKiB, 3 * kKiB * kKiB};
  return p;
}

// Memory-bound ops reported (the others of the family are skipped to keep the run short).
bool wanted_memory_op(const json& params, bool held_out) {
  const std::string op = params.value("op", "");
  if (held_out) return op == "layernorm" || op == "softmax" || op == "gelu" || op == "adam";
  return op == "layernorm" || op == "gelu";
}

// Every size any sweep plan (quick or full) of the backend measures: what a profile can have been
// fitted on.
struct SweepSizes {
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool, bool>> gemms;
  std::set<std::pair<std::int64_t, std::int64_t>> memory;
  std::set<double> collective;
};

SweepSizes sweep_sizes(BackendKind kind) {
  SweepSizes s;
  for (const bool quick : {true, false}) {
    const auto plan = kernels::make_sweep_plan(kind, quick);
    for (const GemmShape& g : plan.gemm_shapes)
      s.gemms.insert({g.m, g.n, g.k, g.trans_a, g.trans_b});
    for (const MemoryShape& m : plan.memory_shapes) s.memory.insert({m.rows, m.cols});
    for (const auto b : plan.collective_bytes) s.collective.insert(double(b));
  }
  return s;
}

bool is_held_out(const kernels::Descriptor& d, const SweepSizes& s) {
  const json& p = d.params;
  switch (d.kind) {
    case kernels::Kind::kGemm:
      return !s.gemms.contains({p.at("m"), p.at("n"), p.at("k"), p.at("trans_a"), p.at("trans_b")});
    case kernels::Kind::kMemoryBound:
      return !s.memory.contains({p.at("rows"), p.at("cols")});
    default:
      return !s.collective.contains(d.work.bytes);
  }
}

// The profile's prediction of one item (nccl-tests size for collectives).
double predict_item(const kernels::Descriptor& d, const GpuProfile& g, int ranks_per_node) {
  const json& p = d.params;
  switch (d.kind) {
    case kernels::Kind::kGemm:
      return gemm_cost(p.at("m"), p.at("n"), p.at("k"), 1, Dtype::kFp32, g).seconds;
    case kernels::Kind::kMemoryBound:
      return memory_bound_cost(d.work.bytes, g,
                               memory_kernel_from_name(p.at("op").get<std::string>())
                                   .value_or(MemoryKernel::kAny))
          .seconds;
    default: {
      const int ranks = p.at("ranks");
      const NetworkConfig net = g.network.value_or(NetworkConfig{});
      return collective_cost(CollectiveOp::kAllReduce, d.work.bytes,
                             {ranks, std::min(ranks, ranks_per_node)}, net)
          .seconds;
    }
  }
}

// The descriptors to measure: gemm and memory-bound items, and all-reduces over the whole world.
std::vector<kernels::Descriptor> item_descriptors(kernels::Backend& backend,
                                                  const kernels::SweepPlan& plan, int world,
                                                  const SweepSizes& sizes) {
  std::vector<kernels::Descriptor> out;
  for (auto& d : backend.descriptors(plan)) {
    const bool keep =
        d.kind == kernels::Kind::kGemm ||
        (d.kind == kernels::Kind::kMemoryBound &&
         wanted_memory_op(d.params, is_held_out(d, sizes))) ||
        (d.kind == kernels::Kind::kCollective && d.params.value("op", "") == "all_reduce" &&
         d.params.value("ranks", 0) == world);
    if (keep) out.push_back(std::move(d));
  }
  return out;
}

double median_of(const std::vector<ValidationItem>& items, bool held_out) {
  std::vector<double> v;
  for (const auto& i : items)
    if (i.held_out == held_out) v.push_back(i.abs_pct_error);
  return v.empty() ? 0.0 : median(v);
}

int ranks_on_node_of_rank0(const kernels::Comm& world) {
  const auto node = world.node_of_rank();
  return int(std::count(node.begin(), node.end(), node.front()));
}

}  // namespace

kernels::CompositeConfig composite_config(bool quick, BackendKind kind) {
  kernels::CompositeConfig c;
  if (kind == BackendKind::kCuda) {
    // A step of tens of ms on a GPU, so that kernel time, not launch cost, dominates: about
    // 68 M parameters, 2 x 1024 tokens, 16 heads of 64.
    c.layers = 4;
    c.hidden = 1024;
    c.heads = 16;
    c.ffn_hidden = 4096;
    c.vocab = 8192;
    c.seq_len = 1024;
    c.micro_batch = 2;
  }
  c.warmup_steps = quick ? 2 : 3;
  c.timed_steps = quick ? 7 : 15;
  return c;
}

void check_composite_scenario(bool quick, BackendKind kind, const GpuProfile& profile,
                              const kernels::Comm& world) {
  const json s = composite_scenario(composite_config(quick, kind), world.size(),
                                    ranks_on_node_of_rank0(world), profile);
  (void)predict_step(s);
}

NetworkConfig placeholder_network() {
  // PLACEHOLDERS, not measurements: a profile from a single-rank `calibrate` measures no
  // collective and names no node.network, but evaluate needs a network. These values stand for
  // one node running MPI over shared memory (a memcpy-class ~10 GB/s per rank, ~1 us latency);
  // the inter-node values are never used on one node and only have to pass the checks.
  NetworkConfig n;
  n.name = "validate-shared-memory-placeholder";
  n.intra_node_GBps = 10;
  n.intra_node_latency_us = 1;
  n.inter_node_Gbps = 10;
  n.inter_node_latency_us = 10;
  return n;
}

json composite_scenario(const kernels::CompositeConfig& c, int ranks, int ranks_per_node,
                        const GpuProfile& profile) {
  const double grad_bytes = 4 * kernels::composite_parameters(c);
  const int per_node = std::min(ranks, ranks_per_node);
  json scenario = {
      {"name", "validate-composite"},
      {"description", "the composite workload of shardsim validate (kernels/common/composite.h)"},
      {"model",
       {{"layers", c.layers},
        {"hidden", c.hidden},
        {"heads", c.heads},
        {"ffn_hidden", c.ffn_hidden},
        {"vocab", c.vocab},
        {"ffn_type", "gelu"},
        {"norm", "layernorm"},
        {"position", "learned"},
        {"tied_embeddings", false},
        {"bias", false},
        {"dropout", false}}},
      {"training",
       {{"seq_len", c.seq_len},
        {"micro_batch", c.micro_batch},
        {"global_batch", ranks * c.micro_batch},
        {"precision", "fp32"},
        {"tf32", false},  // the composite's SGEMMs run with TF32 math off
        {"optimizer", "adam"},
        {"flash_attention", false},
        {"recompute", "none"},
        // kernels/*/composite: one kernel computes the loss and its gradient in place (max, exp,
        // scale: 20 B per fp32 logit in one forward kernel). The nearest implementation shardsim
        // has is the fused one (16 B in a forward and a backward kernel): an approximation.
        {"cross_entropy", "fused"}}},
      {"parallel",
       {{"tp", 1}, {"pp", 1}, {"dp", ranks}, {"zero", 0}, {"overlap_grad_reduce", false}}},
      // One all-reduce of every gradient after the backward pass: one bucket holds them all. The
      // runtime overheads only matter to memory, which validate does not compare: none counted.
      {"overheads",
       {{"ddp_bucket_bytes", grad_bytes},
        {"cuda_context_bytes", 0},
        {"nccl_bytes_per_communicator", 0},
        {"gemm_workspace_bytes", 0}}},
      // The composite calls its kernels directly from C++: no framework dispatches them (their
      // own call cost is inside the measured kernel times), and its optimizer step is the Adam
      // update alone, without a mixed-precision optimizer's copies, norm and zeroing.
      {"framework",
       {{"name", "composite"},
        {"op_dispatch_s", 0},
        {"collective_dispatch_s", 0},
        {"step_overhead_s", 0},
        {"source", "shardsim validate's composite workload calls its kernels directly"}}},
      {"effects", {{"optimizer_traffic", false}}},
      {"cluster",
       {{"gpu", to_json(profile)},
        {"gpus_per_node", per_node},
        {"nodes", (ranks + per_node - 1) / per_node}}},
  };
  // The profile's network section, else its node.network preset (both resolved by the
  // scenario loader), else the documented placeholder so evaluate always has a network.
  if (profile.network)
    scenario["cluster"]["network"] = to_json(*profile.network);
  else if (profile.default_network.empty())
    scenario["cluster"]["network"] = to_json(placeholder_network());
  return scenario;
}

StepPrediction predict_step(const json& scenario) {
  const Scenario s = scenario_from_json(scenario, "");
  StepPrediction p;
  for (const Mode mode : {Mode::kDes, Mode::kAnalytic}) {
    const Expected<Estimate> e = evaluate(s, {mode, false, MemoryDetail::kNumbers});
    if (!e) throw std::runtime_error("evaluate rejected the composite scenario");
    if (!e->time) throw std::runtime_error("evaluate gave no step time for the composite scenario");
    (mode == Mode::kDes ? p.des_seconds : p.analytic_seconds) = e->time->step_seconds;
    if (mode == Mode::kDes) p.des_breakdown = e->time->breakdown;
  }
  return p;
}

double abs_pct_error(double predicted, double measured) {
  if (!(measured > 0)) return std::numeric_limits<double>::infinity();
  return 100.0 * std::fabs(predicted - measured) / measured;
}

ValidationResult run_validation(bool quick, const GpuProfile& profile, kernels::Backend& backend,
                                const kernels::Comm& world, const PhaseHook& on_phase) {
  ValidationResult r;
  r.ranks = world.size();
  r.ranks_per_node = ranks_on_node_of_rank0(world);
  const BackendKind kind = backend.name() == "cuda" ? BackendKind::kCuda : BackendKind::kCpu;
  const SweepSizes sizes = sweep_sizes(kind);
  const kernels::SweepPlan plan = item_plan(quick, kind);
  for (const auto& d : item_descriptors(backend, plan, world.size(), sizes)) {
    if (on_phase) on_phase(d.name, r.items.size());
    const kernels::Measurement m = kernels::measure(d, backend.timer(), world, plan.loop);
    if (!m.verification.ok)
      throw std::runtime_error(d.name + " failed verification: " + m.verification.detail);
    ValidationItem it{d.name,
                      std::string(kernels::kind_name(d.kind)),
                      m.summary.median_s,
                      predict_item(d, profile, r.ranks_per_node),
                      0,
                      is_held_out(d, sizes)};
    it.abs_pct_error = abs_pct_error(it.predicted_seconds, it.measured_seconds);
    r.items.push_back(it);
  }
  r.composite = composite_config(quick, kind);
  if (on_phase) on_phase("composite step", r.items.size());
  const kernels::CompositeResult c = backend.run_composite(r.composite, world);
  r.scenario = composite_scenario(r.composite, r.ranks, r.ranks_per_node, profile);
  const StepPrediction p = predict_step(r.scenario);
  r.scenario["cluster"]["gpu"] = profile.name;  // the report names the profile, not all of it
  r.step.measured_seconds = c.step_seconds;
  r.step.predicted_seconds = p.des_seconds;
  r.step.abs_pct_error = abs_pct_error(p.des_seconds, c.step_seconds);
  r.step.predicted_analytic_seconds = p.analytic_seconds;
  r.step.samples_s = c.samples_s;
  r.step.verified = c.verified;
  r.step.verification = c.verification;
  const TimeSplit& b = p.des_breakdown;
  const auto phase = [](const char* name, double measured, double predicted) {
    return ValidationPhase{name, measured, predicted, abs_pct_error(predicted, measured)};
  };
  // One rank reduces no gradient: its grad_allreduce phase is the clock read between phases
  // (1.5 us on the first GPU run, 2026-11-27, reported as a 100 % error against 0), so it is left
  // out.
  r.step.phases = {phase("forward_backward", c.phases.forward_backward_s,
                         b[TimeCategory::kCompute] + b[TimeCategory::kRecompute])};
  if (r.ranks > 1)
    r.step.phases.push_back(
        phase("grad_allreduce", c.phases.grad_allreduce_s, b[TimeCategory::kDpComm]));
  r.step.phases.push_back(phase("optimizer", c.phases.optimizer_s, b[TimeCategory::kOptimizer]));
  r.held_out_median_abs_pct_error = median_of(r.items, true);
  r.fitted_median_abs_pct_error = median_of(r.items, false);
  return r;
}

}  // namespace shardsim::calibrate
