#include "simulator/scenario/validate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "simulator/core/diagnostics.h"
#include "simulator/scenario/validate_detail.h"

namespace shardsim {
namespace {

// Fills parallel.dp and cluster.nodes from whichever is given.
// Largest cluster accepted: 2^24 (16.8M) GPUs, far beyond any built machine; keeps every product
// of degrees inside 64-bit integers and every degree inside int.
constexpr std::int64_t kMaxGpus = std::int64_t{1} << 24;
// Largest pipeline accepted: 4,096 (virtual) stages, far above any published run; reports list
// every stage, so this bounds their size.
constexpr std::int64_t kMaxChunks = 4096;

bool check_size(Diagnostics& d, const std::string& path, const std::string& what,
                std::int64_t value) {
  if (value <= kMaxGpus) return true;
  d.error(path,
          fmt::format("{} = {} GPUs exceeds the supported maximum of {}", what, value, kMaxGpus));
  return false;
}

}  // namespace

void resolve_world(Scenario& s, Diagnostics& d) {
  auto& p = s.strategy;
  auto& c = s.cluster;
  const std::int64_t model_ranks = std::int64_t(p.tp) * p.pp * p.cp;  // each <= 2^20: no overflow
  if (!check_size(d, "/parallel", "tp*pp*cp", model_ranks)) return;
  if (!check_size(d, "/cluster/nodes", "nodes x gpus_per_node", c.gpus())) return;
  if (p.dp != 0 && !check_size(d, "/parallel/dp", "tp*pp*cp*dp", model_ranks * p.dp)) return;
  if (c.nodes == 0 && p.dp == 0) c.nodes = 1;
  if (c.nodes == 0) {  // dp given: derive the node count
    const std::int64_t world = model_ranks * p.dp;
    if (world < c.gpus_per_node) {
      s.warnings.push_back(fmt::format("using {} of the node's {} GPUs", world, c.gpus_per_node));
      c.gpus_per_node = int(world);
      c.nodes = 1;
    } else if (world % c.gpus_per_node != 0) {
      d.error("/parallel/dp", fmt::format("tp*pp*cp*dp = {}*{}*{}*{} = {} GPUs do not fill whole "
                                          "nodes of cluster.gpus_per_node = {}; set cluster.nodes",
                                          p.tp, p.pp, p.cp, p.dp, world, c.gpus_per_node));
      return;
    } else {
      c.nodes = int(world / c.gpus_per_node);
    }
  }
  const std::int64_t gpus = c.gpus();
  if (gpus % model_ranks != 0) {
    d.error("/parallel",
            fmt::format("the cluster's {} GPUs ({} nodes x {}) are not divisible by "
                        "tp*pp*cp = {}*{}*{} = {}",
                        gpus, c.nodes, c.gpus_per_node, p.tp, p.pp, p.cp, model_ranks));
    return;
  }
  const std::int64_t dp = gpus / model_ranks;
  if (p.dp != 0 && p.dp != dp) {
    d.error("/parallel/dp", fmt::format("tp*pp*cp*dp = {}*{}*{}*{} = {} but the cluster has {} "
                                        "GPUs ({} nodes x {})",
                                        p.tp, p.pp, p.cp, p.dp, model_ranks * p.dp, gpus, c.nodes,
                                        c.gpus_per_node));
    return;
  }
  p.dp = int(dp);
}

namespace {

void check_divides(Diagnostics& d, const std::string& path, const std::string& what,
                   std::int64_t value, const std::string& by_what, std::int64_t by) {
  if (by > 0 && value % by != 0)
    d.error(path, fmt::format("{} ({}) must be divisible by {} ({})", what, value, by_what, by));
}

void check_model(const Scenario& s, Diagnostics& d) {
  const auto& m = s.model;
  const auto& p = s.strategy;
  if (m.head_dim == 0 && m.attention == AttentionType::kStandard)
    check_divides(d, "/model/hidden", "model.hidden", m.hidden, "model.heads", m.heads);
  if (m.kv_heads > m.heads)
    d.error("/model/kv_heads",
            fmt::format("model.kv_heads ({}) exceeds model.heads ({})", m.kv_heads, m.heads));
  else if (m.kv_heads > 0)
    check_divides(d, "/model/heads", "model.heads", m.heads, "model.kv_heads", m.kv_heads);
  check_divides(d, "/parallel/tp", "model.heads", m.heads, "parallel.tp", p.tp);
  if (m.attention == AttentionType::kStandard)
    check_divides(d, "/parallel/tp", "model.kv_heads", m.effective_kv_heads(), "parallel.tp", p.tp);
  check_divides(d, "/parallel/tp", "model.ffn_hidden", m.effective_ffn_hidden(), "parallel.tp",
                p.tp);
  if (!m.moe.enabled()) {
    if (p.ep > 1)
      d.error("/parallel/ep", fmt::format("parallel.ep = {} but the model has no experts "
                                          "(model.moe.experts = 0)",
                                          p.ep));
    return;
  }
  if (m.moe.top_k < 1 || m.moe.top_k > m.moe.experts)
    d.error("/model/moe/top_k", fmt::format("model.moe.top_k ({}) must be in [1, experts = {}]",
                                            m.moe.top_k, m.moe.experts));
  if (m.moe.expert_ffn_hidden < 1)
    d.error("/model/moe/expert_ffn_hidden", "must be >= 1 when model.moe.experts > 0");
  else
    check_divides(d, "/parallel/tp", "model.moe.expert_ffn_hidden", m.moe.expert_ffn_hidden,
                  "parallel.tp", p.tp);
  if (m.moe.first_dense_layers > m.layers)
    d.error("/model/moe/first_dense_layers",
            fmt::format("model.moe.first_dense_layers ({}) exceeds model.layers ({})",
                        m.moe.first_dense_layers, m.layers));
  check_divides(d, "/parallel/ep", "model.moe.experts", m.moe.experts, "parallel.ep", p.ep);
}

void check_parallel(const Scenario& s, StrategyCheck& c) {
  Diagnostics& d = c.errors;
  const auto& p = s.strategy;
  const auto& t = s.training;
  const std::int64_t dpcp = std::int64_t(p.dp) * p.cp;
  if (p.ep > dpcp)
    c.infeasible.push_back(
        {"ep_group", "/parallel/ep",
         fmt::format("the expert-parallel group (parallel.ep = {}) is larger than the "
                     "data-parallel x context-parallel ranks that can hold experts (dp*cp = {})",
                     p.ep, dpcp)});
  else
    check_divides(d, "/parallel/ep", "dp*cp", dpcp, "parallel.ep", p.ep);
  validate_detail::check_context_parallel(s, c);
  if (p.sp && p.tp > 1)
    check_divides(d, "/training/seq_len", "training.seq_len / cp", t.seq_len / p.cp,
                  "parallel.tp (sequence parallel)", p.tp);
  // dp*micro_batch may exceed int64 (dp <= 2^24, micro_batch <= 2^40): compare by division.
  if (t.micro_batch > t.global_batch || p.dp > t.global_batch / t.micro_batch) {
    d.error("/training/global_batch",
            fmt::format("training.global_batch ({}) is smaller than dp*micro_batch ({}*{}): "
                        "every data-parallel rank needs at least one micro-batch",
                        t.global_batch, p.dp, t.micro_batch));
    return;
  }
  const std::int64_t per_step = std::int64_t(p.dp) * t.micro_batch;
  if (t.global_batch % per_step != 0) {
    d.error("/training/global_batch",
            fmt::format("training.global_batch ({}) must be divisible by dp*micro_batch = {}*{} = "
                        "{}",
                        t.global_batch, p.dp, t.micro_batch, per_step));
    return;
  }
  const std::int64_t m = t.global_batch / per_step;
  const bool interleaved = p.schedule_facts().virtual_stages;
  if (interleaved && p.vpp < 2)
    d.error("/parallel/vpp",
            fmt::format("the interleaved schedule needs parallel.vpp > 1, got {}", p.vpp));
  if (!interleaved && p.vpp > 1)
    d.error("/parallel/schedule",
            fmt::format("parallel.vpp = {} needs schedule \"interleaved\"", p.vpp));
  if (interleaved && p.pp < 2)
    d.error("/parallel/pp", "the interleaved schedule needs parallel.pp > 1");
  if (interleaved && p.pp > 1 && m % p.pp != 0)
    c.infeasible.push_back(
        {"interleaved_microbatches", "/training/global_batch",
         fmt::format("the interleaved schedule needs the micro-batch count m = global_batch / "
                     "(dp*micro_batch) = {} to be a multiple of pp = {}",
                     m, p.pp)});
  if (p.offload_params && !p.zero_facts().shards_params)
    d.error("/parallel/offload_params",
            fmt::format("parameter offload needs ZeRO stage 3, got parallel.zero = {}", p.zero));
  if (p.offload_optimizer && !p.zero_facts().shards_optimizer)
    d.error("/parallel/offload_optimizer",
            "optimizer offload needs ZeRO stage 1, 2 or 3 (DeepSpeed offloads the sharded "
            "optimizer states), got parallel.zero = 0");
  if (s.model.moe.enabled() && p.ep > 1 && p.tp > 1 && !p.sp)
    c.warnings.push_back(
        "expert parallelism with tp > 1 runs with sequence parallelism in "
        "Megatron-Core; parallel.sp is off");
  if (p.zero_facts().shards_grads && p.pp > 1)
    c.warnings.push_back(
        fmt::format("ZeRO-{} with pipeline parallelism (pp = {}): DeepSpeed "
                    "supports only ZeRO-1 with pipelines",
                    p.zero, p.pp));
  if (p.sp && p.tp == 1) c.warnings.push_back("parallel.sp has no effect with tp = 1");
  // Choices that are valid but do nothing useful (found by review, 2026-11-27).
  if (p.zero > 0 && p.dp * p.cp == 1 && !p.offload_optimizer && !p.offload_params)
    c.warnings.push_back(fmt::format(
        "ZeRO-{} with a data-parallel group of 1 (dp x cp = 1) shards nothing", p.zero));
  if (p.pp == 1 && p.schedule == Schedule::kGpipe)
    c.warnings.push_back(
        "the gpipe schedule with pp = 1 holds every micro-batch's activations at once; 1f1b "
        "holds one");
  if (p.pp == 1 && (p.schedule == Schedule::kZbH1 || p.schedule == Schedule::kZbH2))
    c.warnings.push_back(
        "a zero-bubble schedule with pp = 1 has no pipeline bubble to fill; it only splits the "
        "backward pass");
  validate_detail::warn_group_placement(s, c);
}

void check_layers(const Scenario& s, Diagnostics& d) {
  const auto& p = s.strategy;
  const int layers = s.model.layers;
  const std::int64_t chunks = std::int64_t(p.pp) * p.vpp;
  if (chunks > kMaxChunks) {
    d.error("/parallel/pp", fmt::format("pp*vpp = {}*{} = {} pipeline chunks exceeds the supported "
                                        "maximum of {}",
                                        p.pp, p.vpp, chunks, kMaxChunks));
    return;
  }
  if (layers < chunks) {
    d.error("/model/layers", fmt::format("model.layers ({}) is fewer than pp*vpp = {}*{} = {} "
                                         "pipeline chunks",
                                         layers, p.pp, p.vpp, chunks));
    return;
  }
  const bool first = p.first_stage_layers >= 0, last = p.last_stage_layers >= 0;
  if (!first && !last) return;
  if (p.vpp > 1)
    d.error("/parallel/first_stage_layers", "explicit first/last stage layers need vpp = 1");
  if (p.pp < 2) {
    d.error("/parallel/first_stage_layers", "explicit first/last stage layers need pp > 1");
    return;
  }
  const int f = first ? p.first_stage_layers : 0, l = last ? p.last_stage_layers : 0;
  const int middle_stages = p.pp - int(first) - int(last);
  const int rest = layers - f - l;
  if (rest < 0 || (middle_stages == 0 && rest != 0) ||
      (middle_stages > 0 && (rest % middle_stages != 0 || rest == 0)))
    d.error("/parallel/first_stage_layers",
            fmt::format("model.layers ({}) minus first ({}) and last ({}) stage layers leaves {} "
                        "layers, which must split evenly over the other {} stages",
                        layers, f, l, rest, middle_stages));
}

void check_positions(const Scenario& s, Diagnostics& d) {
  const auto& m = s.model;
  if (m.position == PositionType::kLearned && m.max_position > 0 &&
      m.max_position < s.training.seq_len)
    d.error(
        "/model/max_position",
        fmt::format("model.max_position ({}) is shorter than training.seq_len ({}): the learned "
                    "position table has no row for later tokens",
                    m.max_position, s.training.seq_len));
}

void check_precision(const Scenario& s, StrategyCheck& c) {
  const auto& peak = s.cluster.gpu.peak;
  if (s.training.precision == Dtype::kFp8 && peak.fp8 <= 0)
    c.warnings.push_back(
        fmt::format("{} has no FP8 tensor cores; fp8 memory is estimated as "
                    "Transformer Engine would lay it out, and its GEMMs are costed "
                    "as bf16 GEMMs",
                    s.cluster.gpu.name));
  if (s.training.precision == Dtype::kFp32 && s.training.tf32 && peak.tf32 <= 0)
    c.warnings.push_back(
        fmt::format("{} has no TF32 tensor cores (peak_flops_per_second.tf32 is 0): the fp32 "
                    "run's GEMMs are costed as FP32 GEMMs, and training.tf32 has no effect",
                    s.cluster.gpu.name));
  if (s.training.precision != Dtype::kFp32 && !s.training.tf32)
    c.warnings.push_back(
        fmt::format("training.tf32 applies to fp32 runs only: it has no effect with precision {}",
                    dtype_name(s.training.precision)));
  if (s.training.precision == Dtype::kBf16 && peak.bf16 <= 0)
    c.warnings.push_back(
        fmt::format("{} has no bf16 tensor cores; its GEMMs are costed at the "
                    "fp16 peak",
                    s.cluster.gpu.name));
  // A kernel name the profile has not measured, where it has measured others: likely a typo, and
  // flash attention then falls back to the score GEMM's efficiency (cost/compute.h).
  const auto& points = s.cluster.gpu.compute.attention_points;
  const std::string& kernel = s.training.attention_kernel;
  if (s.training.flash_attention && s.training.precision != Dtype::kFp32 && !points.empty() &&
      std::ranges::none_of(points, [&](const AttentionPoint& p) { return p.kernel == kernel; })) {
    std::vector<std::string> names;
    for (const auto& p : points)
      if (std::ranges::find(names, p.kernel) == names.end()) names.push_back(p.kernel);
    c.warnings.push_back(fmt::format(
        "training.attention_kernel \"{}\" has no measured rates in hardware profile '{}' (it has "
        "{}): flash attention is costed at its score GEMM's efficiency",
        kernel, s.cluster.gpu.name, fmt::join(names, ", ")));
  }
  // FlashAttention-2 needs Ampere or newer, every one of which has bf16 tensor cores (found by
  // review, 2026-11-28: a V100 priced it silently, at 74 % MFU).
  if (s.training.flash_attention && peak.bf16 <= 0 && peak.fp16 > 0)
    c.warnings.push_back(fmt::format(
        "{} has no bf16 tensor cores, so it predates Ampere, which FlashAttention-2 needs: flash "
        "attention is priced as if it ran; set training.flash_attention false (with cp 1) for the "
        "unfused attention such a GPU runs",
        s.cluster.gpu.name));
  // The cast has a kernel of its own only where an unfused add converts a 16-bit gradient into a
  // wider buffer (cost/grad_accumulation.cc).
  const TrainingConfig& t = s.training;
  if (t.grad_accumulation_cast == GradAccumulationCast::kSeparate && !separate_grad_cast(s))
    c.warnings.push_back(
        "training.grad_accumulation_cast \"separate\" has no effect: it applies to an unfused "
        "accumulation (grad_accumulation_fusion false) of 16-bit gradients into an fp32 buffer "
        "(grad_dtype fp32), with ZeRO 0 or 1 and no optimizer offload (DeepSpeed's BF16 "
        "optimizer)");
  // PyTorch's .grad has the parameters' dtype: an FP32 gradient of 16-bit parameters needs a
  // buffer of its own.
  // With fusion on the key has no effect, whatever the gradients' dtype (checked first).
  if (t.grad_accumulation_target == GradAccumulationTarget::kParamGrad) {
    if (t.grad_accumulation_fusion)
      c.warnings.push_back(
          "training.grad_accumulation_target \"param_grad\" has no effect: it applies to an "
          "unfused accumulation (grad_accumulation_fusion false)");
    else if (t.grad_dtype == GradDtype::kFp32 && t.precision != Dtype::kFp32)
      c.errors.error("/training/grad_accumulation_target",
                     "\"param_grad\" accumulates in the parameters' dtype (PyTorch's .grad), so "
                     "it cannot hold training.grad_dtype fp32 gradients of 16-bit parameters; use "
                     "\"main_grad\" for an FP32 buffer");
  }
  if (s.strategy.recompute == Recompute::kSelective && s.training.flash_attention)
    c.warnings.push_back(
        "selective recomputation with flash attention re-runs attention in the "
        "backward pass without saving memory (flash attention stores no scores)");
}

// The degrees must fill the cluster exactly (resolve_world derived dp so at load; a strategy varied
// afterwards is checked here). Each degree <= 2^20 and dp <= 2^24: the product fits in 64 bits
// only when bounded first, so compare by division.
void check_world(const Scenario& s, Diagnostics& d) {
  const auto& p = s.strategy;
  // The reader enforces degrees >= 1; a strategy varied in code is checked again before any
  // product or division uses them.
  const std::int64_t max_dp = kMaxGpus;  // derived dp reaches the GPU limit, not the degree one
  for (const auto& [name, v, max] : {std::tuple{"tp", p.tp, std::int64_t{kMaxParallelDegree}},
                                     {"pp", p.pp, kMaxParallelDegree},
                                     {"vpp", p.vpp, kMaxParallelDegree},
                                     {"cp", p.cp, kMaxParallelDegree},
                                     {"ep", p.ep, kMaxParallelDegree},
                                     {"dp", p.dp, max_dp}})
    if (v < 1 || v > max)
      d.error(std::string("/parallel/") + name, fmt::format("must be in [1, {}], got {}", max, v));
  // Enumerations set in code index the trait tables: out of range is an error, not a read past.
  if (p.zero < 0 || p.zero >= kZeroStages)
    d.error("/parallel/zero", fmt::format("must be 0, 1, 2 or 3, got {}", p.zero));
  if (int(p.schedule) < 0 || int(p.schedule) >= kScheduleCount)
    d.error("/parallel/schedule", fmt::format("unknown schedule value {}", int(p.schedule)));
  if (int(p.recompute) < 0 || int(p.recompute) >= kRecomputeCount)
    d.error("/training/recompute", fmt::format("unknown recompute value {}", int(p.recompute)));
  if (s.training.micro_batch < 1)
    d.error("/training/micro_batch", fmt::format("must be >= 1, got {}", s.training.micro_batch));
  if (!d.empty()) return;
  const std::int64_t gpus = s.cluster.gpus();
  const std::int64_t model_ranks = std::int64_t(p.tp) * p.pp * p.cp;
  if (gpus % model_ranks == 0 && gpus / model_ranks == p.dp) return;
  d.error("/parallel/dp",
          fmt::format("tp*pp*cp*dp = {}*{}*{}*{} must equal the cluster's {} GPUs ({} nodes x {})",
                      p.tp, p.pp, p.cp, p.dp, gpus, s.cluster.nodes, s.cluster.gpus_per_node));
}

// Expert keys beside model.moe.experts = 0 describe nothing: the model is dense (found by a
// metamorphic review, 2026-11-29: {"experts": 0, "top_k": 1} ran silently as a dense model). A
// warning, not an error, so that --set model.moe.experts=0 still turns a MoE preset dense.
void check_dense_moe_keys(const Scenario& s, StrategyCheck& c) {
  const MoeConfig& moe = s.model.moe;
  if (moe.enabled()) return;
  std::vector<std::string> set;
  if (moe.top_k != 0) set.push_back(fmt::format("top_k = {}", moe.top_k));
  if (moe.expert_ffn_hidden != 0)
    set.push_back(fmt::format("expert_ffn_hidden = {}", moe.expert_ffn_hidden));
  if (moe.shared_experts != 0)
    set.push_back(fmt::format("shared_experts = {}", moe.shared_experts));
  if (moe.first_dense_layers != 0)
    set.push_back(fmt::format("first_dense_layers = {}", moe.first_dense_layers));
  if (set.empty()) return;
  c.warnings.push_back(
      fmt::format("model.moe.experts = 0: the model is dense and model.moe's {} {} ignored",
                  fmt::join(set, ", "), set.size() == 1 ? "is" : "are"));
}

}  // namespace

StrategyCheck check_strategy(const Scenario& s) {
  StrategyCheck c;
  check_world(s, c.errors);
  if (!c.errors.empty()) return c;  // the other checks divide by the degrees
  check_model(s, c.errors);
  check_dense_moe_keys(s, c);
  validate_detail::warn_sliding_window(s, c);
  check_parallel(s, c);
  check_layers(s, c.errors);
  check_positions(s, c.errors);
  check_precision(s, c);
  return c;
}

}  // namespace shardsim
