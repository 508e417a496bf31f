#include "simulator/scenario/importers.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/scenario/strategy.h"

namespace shardsim {
namespace {

nlohmann::json cluster_json(const ImportTarget& t) {
  if (t.gpu.empty()) throw InputError("", "--gpu is required (a GPU preset or profile path)");
  if (t.gpus <= 0) throw InputError("", "--gpus is required: the job's world size (GPUs)");
  nlohmann::json c = {{"gpu", t.gpu}};
  if (t.gpus_per_node > 0) {
    if (t.gpus % t.gpus_per_node != 0)
      throw InputError("", fmt::format("--gpus {} is not a multiple of --gpus-per-node {}", t.gpus,
                                       t.gpus_per_node));
    c["gpus_per_node"] = t.gpus_per_node;
    c["nodes"] = t.gpus / t.gpus_per_node;
  }
  return c;
}

// A DeepSpeed value: a number, or "auto" (Hugging Face Trainer fills it in at run time).
bool is_auto(const nlohmann::json& v) {
  return v.is_string() && v.get<std::string>() == "auto";
}

std::int64_t positive_integer(const nlohmann::json& v, const std::string& key) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 1)
    throw InputError("/" + key, fmt::format("must be an integer >= 1, got {}", json_text(v)));
  return v.get<std::int64_t>();
}

// a x b x c, or InputError at `key` when the product does not fit in 64 bits (the values come
// from the user's config and are not otherwise bounded yet).
std::int64_t checked_product(std::int64_t a, std::int64_t b, std::int64_t c,
                             const std::string& key) {
  std::int64_t ab = 0, abc = 0;
  if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc))
    throw InputError(key, fmt::format("{} x {} x {} does not fit in a 64-bit integer", a, b, c));
  return abc;
}

bool enabled(const nlohmann::json& config, const char* section) {
  const auto it = config.find(section);
  if (it == config.end() || !it->is_object()) return false;
  const auto e = it->find("enabled");
  return e != it->end() && e->is_boolean() && e->get<bool>();
}

}  // namespace

ImportResult import_deepspeed(const nlohmann::json& ds, const ImportTarget& t,
                              const std::string& source_name) {
  if (!ds.is_object())
    throw InputError("", fmt::format("{}: a DeepSpeed config is a JSON object", source_name));
  if (t.model.empty())
    throw InputError("", "--model is required: a DeepSpeed config does not name the model");
  if (t.seq_len <= 0)
    throw InputError("",
                     "--seq-len is required: a DeepSpeed config does not give the sequence "
                     "length");
  ImportResult r;
  auto warn = [&r](std::string w) { r.warnings.push_back(std::move(w)); };
  nlohmann::json training = {{"seq_len", t.seq_len}};
  nlohmann::json parallel = nlohmann::json::object();
  nlohmann::json overheads = nlohmann::json::object();
  std::set<std::string> handled;

  // Precision.
  handled.insert({"fp16", "bf16"});
  const bool fp16 = enabled(ds, "fp16"), bf16 = enabled(ds, "bf16");
  if (fp16 && bf16) throw InputError("/fp16", "fp16 and bf16 are both enabled");
  training["precision"] = fp16 ? "fp16" : bf16 ? "bf16" : "fp32";
  for (const char* s : {"fp16", "bf16"})
    if (ds.contains(s) && ds[s].is_object())
      for (const auto& [k, v] : ds[s].items())
        if (k != "enabled")
          warn(fmt::format("{}.{}: not modelled (loss scaling does not change memory or time)", s,
                           k));

  // Batch: train_batch_size = micro x accumulation x data-parallel size.
  handled.insert(
      {"train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps"});
  std::int64_t micro = 0, accumulation = 0, batch = 0;
  if (ds.contains("train_micro_batch_size_per_gpu")) {
    if (is_auto(ds["train_micro_batch_size_per_gpu"]))
      warn("train_micro_batch_size_per_gpu is \"auto\": the scenario keeps micro-batch 1");
    else
      micro =
          positive_integer(ds["train_micro_batch_size_per_gpu"], "train_micro_batch_size_per_gpu");
  }
  if (ds.contains("gradient_accumulation_steps") && !is_auto(ds["gradient_accumulation_steps"]))
    accumulation =
        positive_integer(ds["gradient_accumulation_steps"], "gradient_accumulation_steps");
  if (ds.contains("train_batch_size") && !is_auto(ds["train_batch_size"]))
    batch = positive_integer(ds["train_batch_size"], "train_batch_size");
  if (micro > 0) training["micro_batch"] = micro;
  // DeepSpeed alone has no tensor or pipeline parallelism: every GPU is a data-parallel rank.
  const std::int64_t dp = t.gpus;
  const std::int64_t product = micro > 0 && accumulation > 0
                                   ? checked_product(micro, accumulation, dp, "/train_batch_size")
                                   : 0;
  if (batch == 0) batch = product;
  if (batch == 0)
    throw InputError(
        "/train_batch_size",
        "the global batch is not given: set train_batch_size, or both "
        "train_micro_batch_size_per_gpu and gradient_accumulation_steps (not \"auto\")");
  if (product > 0 && batch != product)
    throw InputError("/train_batch_size",
                     fmt::format("train_batch_size {} != micro-batch {} x accumulation {} x {} "
                                 "GPUs = {}",
                                 batch, micro, accumulation, dp, product));
  training["global_batch"] = batch;

  // ZeRO.
  handled.insert("zero_optimization");
  if (ds.contains("zero_optimization")) {
    const nlohmann::json& z = ds["zero_optimization"];
    if (!z.is_object()) throw InputError("/zero_optimization", "must be an object");
    for (const auto& [k, v] : z.items()) {
      const std::string key = "zero_optimization." + k;
      if (k == "stage") {
        // Compared as 64-bit (or unsigned) integers: 4294967298 is not stage 2.
        const bool ok = v.is_number_unsigned() ? v.get<std::uint64_t>() <= 3
                        : v.is_number_integer()
                            ? v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= 3
                            : false;
        if (!ok)
          throw InputError("/zero_optimization/stage",
                           fmt::format("must be 0, 1, 2 or 3, got {}", json_text(v)));
        parallel["zero"] = v.get<int>();
      } else if (k == "offload_optimizer" || k == "offload_param") {
        const std::string device = v.is_object() && v.contains("device") && v["device"].is_string()
                                       ? v["device"].get<std::string>()
                                       : "none";
        const bool on = device == "cpu" || device == "nvme";
        parallel[k == "offload_optimizer" ? "offload_optimizer" : "offload_params"] = on;
        if (device == "nvme")
          warn(key + ".device nvme: modelled as host (CPU) memory; NVMe bandwidth is not");
        for (const auto& [kk, vv] : v.items())
          if (kk != "device") warn(fmt::format("{}.{}: not modelled", key, kk));
      } else if (k == "overlap_comm") {
        if (v.is_boolean()) parallel["overlap_grad_reduce"] = v.get<bool>();
      } else if (k == "reduce_bucket_size" || k == "allgather_bucket_size") {
        if (v.is_number() && v.get<double>() > 0)
          overheads["zero_bucket_elements"] = v.get<double>();
        else
          warn(key + ": not a positive number (\"auto\"?): the default bucket is kept");
      } else if (k == "stage3_prefetch_bucket_size") {
        if (v.is_number() && v.get<double>() > 0)
          overheads["zero3_prefetch_elements"] = v.get<double>();
        else
          warn(key + ": not a positive number (\"auto\"?): the default bucket is kept");
      } else {
        warn(key + ": not modelled");
      }
    }
  }

  // Activation checkpointing: the model code decides what is checkpointed; the section's
  // presence is read as full recomputation.
  handled.insert("activation_checkpointing");
  if (ds.contains("activation_checkpointing")) {
    training["recompute"] = "full";
    warn(
        "activation_checkpointing: read as full recomputation of every layer (the model code "
        "decides which layers are checkpointed)");
    if (ds["activation_checkpointing"].is_object())
      for (const auto& [k, v] : ds["activation_checkpointing"].items())
        if (v.is_boolean() && v.get<bool>())
          warn(fmt::format("activation_checkpointing.{}: not modelled", k));
  }

  handled.insert("optimizer");
  if (ds.contains("optimizer") && ds["optimizer"].is_object()) {
    const auto type_it = ds["optimizer"].find("type");
    if (type_it != ds["optimizer"].end() && !type_it->is_string())
      throw InputError("/optimizer/type",
                       fmt::format("must be a string, got {}", json_type_name(*type_it)));
    const std::string type =
        type_it == ds["optimizer"].end() ? std::string() : type_it->get<std::string>();
    std::string lower;
    for (char c : type) lower += char(std::tolower(static_cast<unsigned char>(c)));
    if (ds["optimizer"].contains("params"))
      warn(
          "optimizer.params: not modelled (learning rate, betas and decay change neither memory "
          "nor time)");
    if (lower == "adam" || lower == "adamw" || lower == "sgd")
      training["optimizer"] = lower;
    else
      warn(fmt::format("optimizer.type \"{}\": not modelled; Adam's states are assumed", type));
  }

  for (const auto& [k, v] : ds.items())
    if (!handled.count(k)) warn(k + ": not modelled");

  nlohmann::json model = t.model.find('/') != std::string::npos || t.model.ends_with(".json")
                             ? nlohmann::json{{"hf_config", t.model}}
                             : nlohmann::json{{"preset", t.model}};
  parallel["dp"] = dp;
  r.scenario = {{"name", source_name},
                {"description", fmt::format("imported from the DeepSpeed config {}", source_name)},
                {"model", model},
                {"training", training},
                {"parallel", parallel},
                {"cluster", cluster_json(t)}};
  if (!overheads.empty()) r.scenario["overheads"] = overheads;
  return r;
}

ImportResult import_megatron(const std::vector<std::string>& args, const ImportTarget& t) {
  ImportResult r;
  auto warn = [&r](std::string w) { r.warnings.push_back(std::move(w)); };
  // Flags without a value, and options with one.
  const std::set<std::string> flags = {"--bf16",
                                       "--fp16",
                                       "--sequence-parallel",
                                       "--use-distributed-optimizer",
                                       "--swiglu",
                                       "--untie-embeddings-and-output-weights",
                                       "--group-query-attention",
                                       "--use-flash-attn",
                                       "--overlap-grad-reduce",
                                       "--overlap-param-gather",
                                       "--tp-comm-overlap",
                                       "--disable-bias-linear",
                                       "--add-qkv-bias",
                                       "--use-rotary-position-embeddings"};
  std::map<std::string, std::string> opt;
  std::set<std::string> set_flags;
  // An option name, not a value (negative numbers are values).
  auto is_option = [](const std::string& s) {
    return s.starts_with("--") || (s.size() > 1 && s[0] == '-' &&
                                   !std::isdigit(static_cast<unsigned char>(s[1])) && s[1] != '.');
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!a.starts_with("--")) {
      warn(fmt::format("\"{}\": not an option; ignored", a));
      continue;
    }
    const std::size_t eq = a.find('=');
    if (eq != std::string::npos) {
      opt[a.substr(0, eq)] = a.substr(eq + 1);
    } else if (flags.count(a)) {
      set_flags.insert(a);
    } else if (i + 1 < args.size() && !is_option(args[i + 1])) {
      opt[a] = args[++i];
    } else {
      set_flags.insert(a);  // an unknown flag: reported below
    }
  }
  std::set<std::string> used;
  auto integer = [&](const std::string& key) -> std::int64_t {
    used.insert(key);
    const auto it = opt.find(key);
    if (it == opt.end()) return 0;
    std::size_t n = 0;
    long long v = 0;
    try {
      v = std::stoll(it->second, &n);
    } catch (const std::exception&) {
      n = 0;
    }
    if (n != it->second.size() || v < 1)
      throw InputError("", fmt::format("{} {}: expected an integer >= 1", key, it->second));
    // 2^53: every larger value is refused by the scenario anyway, and products of two such
    // values (layers x ..., hidden x 4) stay far from 64-bit overflow.
    if (v > (std::int64_t{1} << 53))
      throw InputError("", fmt::format("{} {}: at most 2^53 (9007199254740992)", key, v));
    return v;
  };
  // A parallel degree (or layers per virtual stage): at most kMaxParallelDegree, so products of
  // three stay inside 64 bits.
  auto degree = [&](const std::string& key) -> std::int64_t {
    const std::int64_t v = integer(key);
    if (v > kMaxParallelDegree)
      throw InputError("", fmt::format("{} {}: at most {}", key, v, kMaxParallelDegree));
    return v;
  };
  auto text = [&](const std::string& key) -> std::string {
    used.insert(key);
    const auto it = opt.find(key);
    return it == opt.end() ? "" : it->second;
  };
  auto flag = [&](const std::string& key) {
    used.insert(key);
    return set_flags.count(key) > 0;
  };

  nlohmann::json model = nlohmann::json::object();
  const std::int64_t layers = integer("--num-layers"), hidden = integer("--hidden-size"),
                     heads = integer("--num-attention-heads");
  if (!t.model.empty()) {
    model = t.model.find('/') != std::string::npos || t.model.ends_with(".json")
                ? nlohmann::json{{"hf_config", t.model}}
                : nlohmann::json{{"preset", t.model}};
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
  if (const auto g = integer("--num-query-groups")) {
    if (!flag("--group-query-attention"))
      warn(
          "--num-query-groups without --group-query-attention: Megatron ignores it; so does the "
          "scenario");
    else
      model["kv_heads"] = g;
  }
  flag("--group-query-attention");
  if (const auto f = integer("--ffn-hidden-size")) model["ffn_hidden"] = f;
  if (const auto v = integer("--vocab-size")) model["vocab"] = v;
  if (const auto v = integer("--padded-vocab-size")) model["vocab"] = v;
  if (t.model.empty() && !model.contains("vocab"))
    throw InputError("",
                     "--vocab-size is required: Megatron reads the vocabulary from the "
                     "tokenizer, which the arguments do not give");
  if (const auto kv = integer("--kv-channels")) model["head_dim"] = kv;
  const bool swiglu = flag("--swiglu");
  if (swiglu) model["ffn_type"] = "swiglu";
  // Megatron's default width when --ffn-hidden-size is absent (megatron/training/arguments.py):
  // 4 x hidden, or with --swiglu int(4 x hidden x 2/3 / 64) x 64 = floor(hidden / 24) x 64 (two
  // up-projections at 2/3 the width keep the parameter count). A hidden size the scenario refuses
  // anyway (> 2^40) is left to its check.
  if (t.model.empty() && !model.contains("ffn_hidden") && hidden <= (std::int64_t{1} << 40)) {
    const std::int64_t f = swiglu ? hidden / 24 * 64 : 4 * hidden;
    if (f > 0) model["ffn_hidden"] = f;
  }
  if (flag("--untie-embeddings-and-output-weights"))
    model["tied_embeddings"] = false;
  else if (t.model.empty())
    model["tied_embeddings"] = true;
  if (flag("--disable-bias-linear")) model["bias"] = false;
  if (flag("--add-qkv-bias")) model["qkv_bias"] = true;
  const std::string norm = text("--normalization");
  if (norm == "RMSNorm")
    model["norm"] = "rmsnorm";
  else if (norm == "LayerNorm")
    model["norm"] = "layernorm";
  else if (!norm.empty())
    warn("--normalization " + norm + ": not modelled; LayerNorm assumed");
  const std::string pos = text("--position-embedding-type");
  if (pos == "rope" || flag("--use-rotary-position-embeddings"))
    model["position"] = "rope";
  else if (pos == "learned_absolute")
    model["position"] = "learned";
  else if (!pos.empty())
    warn("--position-embedding-type " + pos + ": not modelled");
  if (const auto mp = integer("--max-position-embeddings")) model["max_position"] = mp;
  if (const auto e = integer("--num-experts")) {
    model["moe"] = {{"experts", e}, {"top_k", 2}};
    if (const auto k = integer("--moe-router-topk")) model["moe"]["top_k"] = k;
    // Megatron: --moe-ffn-hidden-size defaults to the dense FFN width.
    if (const auto f = integer("--moe-ffn-hidden-size"))
      model["moe"]["expert_ffn_hidden"] = f;
    else if (model.contains("ffn_hidden"))
      model["moe"]["expert_ffn_hidden"] = model["ffn_hidden"];
    else
      warn(
          "--num-experts without --moe-ffn-hidden-size or --ffn-hidden-size: the expert width "
          "is not known (set model.moe.expert_ffn_hidden)");
  }
  for (const char* d : {"--attention-dropout", "--hidden-dropout"}) {
    const std::string v = text(d);
    if (!v.empty() && v != "0" && v != "0.0") model["dropout"] = true;
  }

  nlohmann::json training = nlohmann::json::object();
  const std::int64_t seq = t.seq_len > 0 ? t.seq_len : integer("--seq-length");
  used.insert("--seq-length");
  if (seq <= 0) throw InputError("", "--seq-length is required");
  training["seq_len"] = seq;
  const std::int64_t gbs = integer("--global-batch-size"), mbs = integer("--micro-batch-size");
  if (gbs <= 0) throw InputError("", "--global-batch-size is required");
  training["global_batch"] = gbs;
  if (mbs) training["micro_batch"] = mbs;
  const bool bf16 = flag("--bf16"), fp16 = flag("--fp16");
  training["precision"] = bf16 ? "bf16" : fp16 ? "fp16" : "fp32";
  const bool flash = flag("--use-flash-attn");
  training["flash_attention"] = flash;
  const std::string rg = text("--recompute-granularity");
  if (rg == "selective" && flash)
    warn(
        "--recompute-granularity selective with --use-flash-attn: selective recomputation re-runs "
        "the attention core, whose scores flash attention never stores, so it saves no memory; "
        "modelled as no recomputation");
  else if (rg == "full" || rg == "selective")
    training["recompute"] = rg;
  else if (!rg.empty())
    warn("--recompute-granularity " + rg + ": not modelled");
  if (!text("--recompute-method").empty() || integer("--recompute-num-layers"))
    warn(
        "--recompute-method / --recompute-num-layers: not modelled; every layer is recomputed "
        "as --recompute-granularity says");

  nlohmann::json parallel = nlohmann::json::object();
  const std::int64_t tp = std::max<std::int64_t>(1, degree("--tensor-model-parallel-size"));
  const std::int64_t pp = std::max<std::int64_t>(1, degree("--pipeline-model-parallel-size"));
  const std::int64_t cp = std::max<std::int64_t>(1, degree("--context-parallel-size"));
  parallel["tp"] = tp;
  parallel["pp"] = pp;
  parallel["cp"] = cp;
  if (const auto ep = degree("--expert-model-parallel-size")) parallel["ep"] = ep;
  if (const auto per = degree("--num-layers-per-virtual-pipeline-stage")) {
    if (!layers || layers % (pp * per) != 0)
      throw InputError("", fmt::format("--num-layers-per-virtual-pipeline-stage {}: --num-layers "
                                       "must be a multiple of it times the pipeline size {}",
                                       per, pp));
    parallel["vpp"] = layers / (pp * per);
    parallel["schedule"] = "interleaved";
  }
  parallel["sp"] = flag("--sequence-parallel");
  parallel["zero"] = flag("--use-distributed-optimizer") ? 1 : 0;
  parallel["overlap_grad_reduce"] = flag("--overlap-grad-reduce");
  parallel["overlap_param_gather"] = flag("--overlap-param-gather");
  parallel["overlap_tp_comm"] = flag("--tp-comm-overlap");
  if (t.gpus > 0 && t.gpus % (tp * pp * cp) == 0) parallel["dp"] = t.gpus / (tp * pp * cp);

  for (const auto& [k, v] : opt)
    if (!used.count(k)) warn(k + " " + v + ": not modelled");
  for (const auto& f : set_flags)
    if (!used.count(f)) warn(f + ": not modelled");

  r.scenario = {{"name", "megatron-import"},
                {"description", "imported from Megatron-LM arguments"},
                {"model", model},
                {"training", training},
                {"parallel", parallel},
                {"cluster", cluster_json(t)}};
  return r;
}

}  // namespace shardsim
