#include "simulator/scenario/importers.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "simulator/core/diagnostics.h"
#include "simulator/scenario/importers_detail.h"
#include "simulator/scenario/importers_megatron_args.h"
#include "simulator/scenario/strategy.h"

namespace shardsim {
namespace {

using import_detail::MegatronArgs;
using Warn = std::function<void(std::string)>;

// The scenario's `model` section. A --model preset or Hugging Face config (ImportTarget::model)
// is the base; the Megatron model arguments given override it.
nlohmann::json megatron_model(MegatronArgs& a, const ImportTarget& t, const Warn& warn) {
  nlohmann::json model = nlohmann::json::object();
  const std::int64_t layers = a.integer("--num-layers"), hidden = a.integer("--hidden-size"),
                     heads = a.integer("--num-attention-heads");
  if (!t.model.empty()) {
    model = import_detail::model_json(t.model);
    if (layers || hidden || heads)
      warn("--model given: the Megatron model arguments override its layers/hidden/heads");
  }
  if (layers) model["layers"] = layers;
  if (hidden) model["hidden"] = hidden;
  if (heads) model["heads"] = heads;
  if (t.model.empty() && !(layers && hidden && heads))
    throw InputError("",
                     "--num-layers, --hidden-size and --num-attention-heads are required "
                     "(or --model PRESET)");
  // --num-query-groups defaults to 1 (arguments.py): --group-query-attention alone is MQA.
  const std::int64_t groups = a.integer("--num-query-groups");
  if (a.flag("--group-query-attention"))
    model["kv_heads"] = groups ? groups : 1;
  else if (groups)
    warn(
        "--num-query-groups without --group-query-attention: Megatron ignores it; so does the "
        "scenario");
  if (const auto f = a.integer("--ffn-hidden-size")) model["ffn_hidden"] = f;
  if (const auto v = a.integer("--vocab-size")) model["vocab"] = v;
  if (const auto v = a.integer("--padded-vocab-size")) {
    // padding only grows the vocabulary (found by review, 2026-11-27: 100 under a vocabulary of
    // 200 was taken as 100)
    if (const auto raw = a.integer("--vocab-size"); raw && v < raw)
      throw InputError("", fmt::format("--padded-vocab-size {} is below --vocab-size {}: padding "
                                       "only adds rows",
                                       v, raw));
    model["vocab"] = v;
  }
  if (t.model.empty() && !model.contains("vocab"))
    throw InputError("",
                     "--vocab-size is required: Megatron reads the vocabulary from the "
                     "tokenizer, which the arguments do not give");
  if (const auto kv = a.integer("--kv-channels")) model["head_dim"] = kv;
  const bool swiglu = a.flag("--swiglu");
  if (swiglu) model["ffn_type"] = "swiglu";
  // Megatron's default width when --ffn-hidden-size is absent (megatron/training/arguments.py):
  // 4 x hidden, or with --swiglu int(4 x hidden x 2/3 / 64) x 64 = floor(hidden / 24) x 64 (two
  // up-projections at 2/3 the width keep the parameter count). A hidden size the scenario refuses
  // anyway (> 2^40) is left to its check.
  if (t.model.empty() && !model.contains("ffn_hidden") && hidden <= (std::int64_t{1} << 40)) {
    const std::int64_t f = swiglu ? hidden / 24 * 64 : 4 * hidden;
    if (f > 0) model["ffn_hidden"] = f;
  }
  if (a.flag("--untie-embeddings-and-output-weights"))
    model["tied_embeddings"] = false;
  else if (t.model.empty())
    model["tied_embeddings"] = true;
  // Megatron's linear layers have biases unless --disable-bias-linear (add_bias_linear defaults
  // to true in arguments.py); a --model preset keeps its own unless the flag is given.
  if (a.flag("--disable-bias-linear"))
    model["bias"] = false;
  else if (t.model.empty())
    model["bias"] = true;
  if (a.flag("--add-qkv-bias")) model["qkv_bias"] = true;
  const std::string norm = a.text("--normalization");
  if (norm == "RMSNorm")
    model["norm"] = "rmsnorm";
  else if (norm == "LayerNorm")
    model["norm"] = "layernorm";
  else if (!norm.empty())  // argparse's choices (arguments.py): anything else stops Megatron-LM
    throw InputError("", fmt::format("--normalization {}: expected LayerNorm or RMSNorm "
                                     "(Megatron-LM's choices)",
                                     norm));
  const std::string pos = a.text("--position-embedding-type");
  // Megatron-LM's choices, and Megatron-DeepSpeed's (absolute, rotary, alibi).
  if (pos == "rope" || pos == "rotary" || a.flag("--use-rotary-position-embeddings"))
    model["position"] = "rope";
  else if (pos == "learned_absolute" || pos == "absolute")
    model["position"] = "learned";
  else if (pos == "relative" || pos == "mrope" || pos == "none" || pos == "alibi")
    warn("--position-embedding-type " + pos + ": not modelled");
  else if (!pos.empty())
    throw InputError("", fmt::format("--position-embedding-type {}: expected learned_absolute, "
                                     "rope, mrope, relative or none (Megatron-LM's choices) or "
                                     "absolute, rotary or alibi (Megatron-DeepSpeed's)",
                                     pos));
  if (const auto mp = a.integer("--max-position-embeddings")) model["max_position"] = mp;
  import_detail::read_megatron_window(a, model, a.integer("--num-layers"), warn);
  if (const auto e = a.integer("--num-experts")) {
    model["moe"] = {{"experts", e}, {"top_k", 2}};
    if (const auto k = a.integer("--moe-router-topk")) model["moe"]["top_k"] = k;
    // Megatron: --moe-ffn-hidden-size defaults to the dense FFN width.
    if (const auto f = a.integer("--moe-ffn-hidden-size"))
      model["moe"]["expert_ffn_hidden"] = f;
    else if (model.contains("ffn_hidden"))
      model["moe"]["expert_ffn_hidden"] = model["ffn_hidden"];
    else
      warn(
          "--num-experts without --moe-ffn-hidden-size or --ffn-hidden-size: the expert width "
          "is not known (set model.moe.expert_ffn_hidden)");
  }
  // Dropout: --attention-dropout and --hidden-dropout default to 0.1 (arguments.py), so the
  // model has dropout unless both are 0; a --model preset keeps its own unless one is given.
  bool dropout = false, dropout_given = false;
  for (const char* d : {"--attention-dropout", "--hidden-dropout"}) {
    const std::string v = a.text(d);
    double p = 0.1;
    if (!v.empty()) {
      dropout_given = true;
      std::size_t n = 0;
      try {
        p = std::stod(v, &n);
      } catch (const std::exception&) {
        n = 0;
      }
      if (n != v.size() || !(p >= 0 && p < 1))
        throw InputError("", fmt::format("{} {}: expected a probability in [0, 1)", d, v));
    }
    dropout = dropout || p > 0;
  }
  if (t.model.empty() || dropout_given) model["dropout"] = dropout;

  return model;
}

// The scenario's `training` section: sequence, batch, precision and gradient dtype, attention
// kernel and recomputation.
nlohmann::json megatron_training(MegatronArgs& a, const ImportTarget& t, const Warn& warn) {
  nlohmann::json training = nlohmann::json::object();
  const std::int64_t seq_arg = a.integer("--seq-length");
  if (t.seq_len > 0 && seq_arg && seq_arg != t.seq_len)
    throw InputError("", fmt::format("--seq-len {} and the argument --seq-length {} disagree",
                                     t.seq_len, seq_arg));
  const std::int64_t seq = t.seq_len > 0 ? t.seq_len : seq_arg;
  if (seq <= 0) throw InputError("", "--seq-length is required");
  training["seq_len"] = seq;
  const std::int64_t gbs = a.integer("--global-batch-size"), mbs = a.integer("--micro-batch-size");
  // Megatron asserts a micro-batch size and defaults the global batch to micro-batch x
  // data-parallel size (arguments.py), which import_megatron fills in once the parallel
  // section gives the data-parallel size.
  if (gbs <= 0 && mbs <= 0)
    throw InputError("",
                     "--micro-batch-size is required (and --global-batch-size, which "
                     "Megatron defaults to micro-batch x data-parallel size)");
  if (gbs > 0) training["global_batch"] = gbs;
  if (mbs)
    training["micro_batch"] = mbs;
  else
    warn("--micro-batch-size absent (Megatron requires it): read as 1");
  const bool bf16 = a.flag("--bf16"), fp16 = a.flag("--fp16");
  if (bf16 && fp16) throw InputError("", "--bf16 and --fp16 are both given (Megatron asserts not)");
  training["precision"] = bf16 ? "bf16" : fp16 ? "fp16" : "fp32";
  if (!bf16 && !fp16) warn(import_detail::kFp32Tf32Warning);
  // Main gradients (megatron/training/arguments.py): --bf16 forces gradient accumulation and the
  // data-parallel reduction into fp32 ("bfloat16 requires gradient accumulation and all-reduce to
  // be done in fp32"), unless a newer Megatron's --grad-reduce-in-bf16 keeps them in bf16 (it
  // wins over --accumulate-allreduce-grads-in-fp32 there); --accumulate-allreduce-grads-in-fp32
  // asks for fp32 at the other precisions.
  const bool fp32_grads = a.flag("--accumulate-allreduce-grads-in-fp32"),
             bf16_reduce = a.flag("--grad-reduce-in-bf16");
  if (bf16_reduce && !bf16) warn("--grad-reduce-in-bf16 without --bf16: not modelled");
  // A newer Megatron's precision-aware optimizer: --main-grads-dtype bf16 keeps them in bf16 too.
  const std::string main_grads = a.text("--main-grads-dtype");
  if (!main_grads.empty() && main_grads != "fp32" && main_grads != "bf16")
    warn("--main-grads-dtype " + main_grads + ": not modelled");
  if (bf16 ? !(bf16_reduce || main_grads == "bf16") : fp32_grads) training["grad_dtype"] = "fp32";
  // --no-gradient-accumulation-fusion: the weight-gradient GEMMs write a gradient that the DDP's
  // hook then adds into the main gradient buffer (the default fuses the accumulation into the
  // GEMM).
  if (a.flag("--no-gradient-accumulation-fusion")) training["grad_accumulation_fusion"] = false;
  // Attention (pretrain_gpt.py, megatron/training/arguments.py). Megatron-Core models (the default
  // since 2024-04, e7b74a4b7e) take --transformer-impl, transformer_engine by default, whose
  // attention (--attention-backend auto, flash or fused) is FlashAttention or cuDNN's fused
  // kernel; --attention-backend unfused or local, or --transformer-impl local, run the unfused
  // core attention. --use-flash-attn is read only by the legacy models (--use-legacy-models),
  // which run unfused attention without it.
  // A flag that only an older Megatron-LM accepts marks a Megatron of before 2024, whose GPT is
  // the legacy model: --DDP-impl (removed 2023-08, 3fb3e95ec6), --checkpoint-activations (an
  // error since 2023-04, 3e71ad9c62) and --activations-checkpoint-method (2021-08 to 2022-04).
  const std::string ddp_impl = a.text("--DDP-impl"),
                    old_method = a.text("--activations-checkpoint-method");
  const bool old_checkpointing = a.flag("--checkpoint-activations");
  const std::string old_flag = !ddp_impl.empty()     ? "--DDP-impl"
                               : old_checkpointing   ? "--checkpoint-activations"
                               : !old_method.empty() ? "--activations-checkpoint-method"
                                                     : "";
  const std::string impl = a.text("--transformer-impl"), backend = a.text("--attention-backend");
  const bool use_flash = a.flag("--use-flash-attn"),
             legacy = a.flag("--use-legacy-models") || !old_flag.empty();
  if (!old_flag.empty() && !a.flag("--use-legacy-models"))
    warn(old_flag +
         ": a flag of Megatron-LM before 2024, whose GPT is the legacy model: attention "
         "modelled as " +
         (use_flash ? "flash (--use-flash-attn)" : "unfused (no --use-flash-attn)"));
  a.flag("--use-mcore-models");  // an older Megatron's opt-in to what is now the default
  // Values outside argparse's choices stop Megatron-LM; a misspelt "Local" read as
  // transformer_engine turned flash attention on (found by review, 2026-11-28).
  if (impl == "inference_optimized")
    warn("--transformer-impl " + impl + ": not modelled; read as transformer_engine");
  else if (!impl.empty() && impl != "local" && impl != "transformer_engine")
    throw InputError("", fmt::format("--transformer-impl {}: expected local, "
                                     "transformer_engine or inference_optimized (Megatron-LM's "
                                     "choices)",
                                     impl));
  if (!backend.empty() && backend != "auto" && backend != "flash" && backend != "fused" &&
      backend != "unfused" && backend != "local")
    throw InputError("", fmt::format("--attention-backend {}: expected flash, fused, unfused, "
                                     "local or auto (Megatron-LM's AttnBackend)",
                                     backend));
  const bool unfused_core = backend == "unfused" || backend == "local" || impl == "local";
  const bool flash = legacy ? use_flash : !unfused_core;
  if (!legacy && use_flash && unfused_core)
    warn(
        "--use-flash-attn: read only by the legacy models (--use-legacy-models); Megatron-Core's "
        "local attention is unfused");
  if (impl.empty() && backend.empty() && !use_flash && !legacy)
    warn(
        "attention: neither --transformer-impl, --attention-backend nor --use-flash-attn given; "
        "modelled as flash attention, Transformer Engine's default since Megatron-LM 2024-04. "
        "An older Megatron-LM ran unfused attention here: set training.flash_attention false");
  training["flash_attention"] = flash;
  // The older --recompute-activations means --recompute-granularity selective, whatever that
  // says (arguments.py).
  // Before 2022-04 (cfd2e21607) full recomputation was --checkpoint-activations, or, from 2021-08,
  // --activations-checkpoint-method uniform|block; either is --recompute-granularity full.
  std::string rg = a.text("--recompute-granularity");
  // argparse's choices (arguments.py: full, selective): anything else stops Megatron-LM
  if (!rg.empty() && rg != "full" && rg != "selective")
    throw InputError("", fmt::format("--recompute-granularity {}: expected full or selective "
                                     "(Megatron-LM's choices)",
                                     rg));
  if (rg.empty() && (old_checkpointing || !old_method.empty())) rg = "full";
  if (a.flag("--recompute-activations")) rg = "selective";
  if (rg == "selective" && flash)
    warn(
        "--recompute-granularity selective (or --recompute-activations) with flash attention: "
        "selective recomputation re-runs "
        "the attention core, whose scores flash attention never stores, so it saves no memory; "
        "modelled as no recomputation");
  else if (!rg.empty())
    training["recompute"] = rg;
  // uniform with one layer per chunk (the default) is what full recomputation models; block, or
  // chunks of several layers, recompute or keep something else.
  const std::string method =
      a.text("--recompute-method").empty() ? old_method : a.text("--recompute-method");
  if (!method.empty() && method != "uniform" && method != "block")
    throw InputError(
        "", fmt::format("{} {}: expected uniform or block (Megatron-LM's choices)",
                        a.text("--recompute-method").empty() ? "--activations-checkpoint-method"
                                                             : "--recompute-method",
                        method));
  const std::int64_t chunk = std::max({a.integer("--recompute-num-layers"),
                                       a.integer("--activations-checkpoint-num-layers"),
                                       a.integer("--checkpoint-num-layers")});
  if ((!method.empty() && method != "uniform") || chunk > 1)
    warn(
        "--recompute-method / --recompute-num-layers (or the older --activations-checkpoint-method "
        "/ --activations-checkpoint-num-layers / --checkpoint-num-layers): not modelled; every "
        "layer is recomputed as --recompute-granularity says");

  return training;
}

// The scenario's `parallel` section.
nlohmann::json megatron_parallel(MegatronArgs& a, const ImportTarget& t, const Warn& warn) {
  const std::int64_t layers = a.integer("--num-layers");
  const std::string ddp_impl = a.text("--DDP-impl");
  nlohmann::json parallel = nlohmann::json::object();
  const std::int64_t tp = std::max<std::int64_t>(1, a.degree("--tensor-model-parallel-size"));
  const std::int64_t pp = std::max<std::int64_t>(1, a.degree("--pipeline-model-parallel-size"));
  const std::int64_t cp = std::max<std::int64_t>(1, a.degree("--context-parallel-size"));
  parallel["tp"] = tp;
  parallel["pp"] = pp;
  parallel["cp"] = cp;
  if (const auto ep = a.degree("--expert-model-parallel-size")) parallel["ep"] = ep;
  // The chunks per pipeline rank given directly: --num-virtual-stages-per-pipeline-rank (since
  // 2025-02, ef490839e8) or the first interleaving's --virtual-pipeline-model-parallel-size
  // (2020-12 to 2021-02).
  for (const char* key :
       {"--num-virtual-stages-per-pipeline-rank", "--virtual-pipeline-model-parallel-size"})
    if (const auto v = a.degree(key); v > 1) {
      if (a.integer("--num-layers-per-virtual-pipeline-stage"))
        throw InputError(
            "", std::string(key) + " and --num-layers-per-virtual-pipeline-stage are both given");
      parallel["vpp"] = v;
      parallel["schedule"] = "interleaved";
    }
  if (const auto per = a.degree("--num-layers-per-virtual-pipeline-stage")) {
    if (!layers || layers % (pp * per) != 0)
      throw InputError("", fmt::format("--num-layers-per-virtual-pipeline-stage {}: --num-layers "
                                       "must be a multiple of it times the pipeline size {}",
                                       per, pp));
    parallel["vpp"] = layers / (pp * per);
    parallel["schedule"] = "interleaved";
  }
  parallel["sp"] = a.flag("--sequence-parallel");
  parallel["zero"] = a.flag("--use-distributed-optimizer") ? 1 : 0;
  // --DDP-impl torch (before 2023-08): PyTorch DDP, whose buckets reduce during the backward pass;
  // local (its default): after it, as Megatron-Core's DDP without --overlap-grad-reduce.
  if (!ddp_impl.empty() && ddp_impl != "local" && ddp_impl != "torch")
    throw InputError("", "--DDP-impl " + ddp_impl + ": expected local or torch");
  parallel["overlap_grad_reduce"] = a.flag("--overlap-grad-reduce") || ddp_impl == "torch";
  parallel["overlap_param_gather"] = a.flag("--overlap-param-gather");
  parallel["overlap_tp_comm"] = a.flag("--tp-comm-overlap");
  import_detail::read_megatron_cp_comm(a, layers, cp, parallel, warn);
  if (t.gpus > 0 && t.gpus % (tp * pp * cp) != 0)
    throw InputError("", fmt::format("--gpus {} is not a multiple of the tensor x pipeline x "
                                     "context parallel sizes {} x {} x {} = {}",
                                     t.gpus, tp, pp, cp, tp * pp * cp));
  if (t.gpus > 0) parallel["dp"] = t.gpus / (tp * pp * cp);

  return parallel;
}

}  // namespace

ImportResult import_megatron(const std::vector<std::string>& args, const ImportTarget& t) {
  ImportResult r;
  const Warn warn = [&r](std::string w) { r.warnings.push_back(std::move(w)); };
  MegatronArgs a(args, r.warnings);
  nlohmann::json model = megatron_model(a, t, warn);
  nlohmann::json training = megatron_training(a, t, warn);
  nlohmann::json parallel = megatron_parallel(a, t, warn);
  if (!training.contains("global_batch"))
    training["global_batch"] =
        training["micro_batch"].get<std::int64_t>() * parallel.value("dp", std::int64_t(1));
  a.warn_unread();
  r.scenario = {
      {"name", "megatron-import"},       {"description", "imported from Megatron-LM arguments"},
      {"model", std::move(model)},       {"training", std::move(training)},
      {"parallel", std::move(parallel)}, {"cluster", import_detail::cluster_json(t)}};
  return r;
}

}  // namespace shardsim
