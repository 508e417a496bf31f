// The MosaicML groups of the validation suite (cases.h): MPT throughput measured with llm-foundry
// on PyTorch FSDP, from the benchmark tables of github.com/mosaicml/llm-foundry
// (scripts/train/benchmarking/README.md). `mosaicml` holds the 7 A100 rows that issue 9 names;
// `mosaicml-more` every other BF16 row of the same tables, an independent check. Every modelling
// choice is written next to its scenario builder, with the reason; the same text is in README
// "Validation against published runs".
#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "simulator/suite/cases.h"
#include "simulator/suite/csv.h"

namespace shardsim::suite {
namespace {

constexpr std::string_view kMosaicFile = "published/mosaicml-mpt-a100.csv";
constexpr std::string_view kMosaicMoreFile = "published/mosaicml-llm-foundry-more.csv";
constexpr const char* kSource = "mosaicml/llm-foundry scripts/train/benchmarking/README.md";

// One benchmark run as a scenario. The model as the published parameter counts require (see the
// data files' headers): GeLU MLP of 4h, LayerNorm, learned positions of seq_len rows, biases, tied
// embeddings, vocabulary 50368; flash attention; BF16 (both "bf16" and "amp_bf16" compute in BF16;
// the gradient and master-weight dtypes FSDP keeps are not modelled apart); activation
// checkpointing = full recomputation; FSDP FULL_SHARD = ZeRO-3, SHARD_GRAD_OP = ZeRO-2; nodes of
// 8 GPUs. The network is the GPU preset's default: for A100, DGX A100's 8 x 200 Gb/s per node,
// the line rate of MosaicML's 1600 Gb/s RoCE; for H100 (whose tables name no interconnect), DGX
// H100's 8 x 400 Gb/s. Attention kernel: "flash-attention-triton". The benchmark script that made
// these tables (scripts/train/benchmarking/submit_benchmarks.py, at every commit from 2023-06-29
// to 2024-01-06, when the last table was added) defaults to --attn_impl triton, llm-foundry's
// Triton FlashAttention (llmfoundry/models/layers/flash_attn_triton.py); the rows do not say
// otherwise. The A100 profiles carry a Triton FlashAttention's measured rate (the "FlashAttention
// Triton" bars of FlashAttention-2's A100 benchmark, scenarios/measurements/attention/), the
// closest measurement there is; no H100 figure measured it, so the H100 profile's Triton points
// are its measured FlashAttention-2 rates times the Triton / FlashAttention-2 ratio measured on
// A100 (fit --attention-relative, scenarios/measurements/rebuild-profiles.sh). Loss: "fused"
// cross-entropy. llm-foundry's MPT defaults to loss_fn "fused_crossentropy"
// (llmfoundry/models/mpt/modeling_mpt.py at every table commit above), which loads flash-attn's
// CrossEntropyLoss and raises if it is missing; the benchmark yamls do not change it.
struct MptRun {
  std::string id;
  int hidden = 0, heads = 0, layers = 0;
  int seq_len = 0, global_batch = 0, micro_batch = 0, gpus = 0, zero = 3;
  bool recompute = false;
  bool fp32_reduce = false;  // FSDP mixed precision DEFAULT: gradients reduced in fp32
  std::string gpu;           // a GPU preset
};

// FSDP's mixed-precision mode. Composer's get_mixed_precision (composer/trainer/
// mosaic_fsdp_utils.py, 2023-10): DEFAULT computes and gathers parameters in bf16 and reduces
// gradients in fp32; PURE does all three in bf16. Every row of llm-foundry's tables pairs
// precision amp_bf16 with MP mode DEFAULT (129 rows) and bf16 with PURE (80 rows), so the
// precision says the mode where a table's copy lacks the column (mosaicml-mpt-a100.csv).
std::string mp_mode_of_precision(const CsvTable& t, std::size_t r) {
  const std::string& p = t.field(r, "precision");
  if (p == "amp_bf16") return "DEFAULT";
  if (p == "bf16") return "PURE";
  throw std::logic_error(fmt::format("{}:{}: precision \"{}\"", t.file, t.lines[r], p));
}

nlohmann::json mpt_scenario(const MptRun& m) {
  return {{"name", m.id},
          {"model",
           {{"layers", m.layers},
            {"hidden", m.hidden},
            {"heads", m.heads},
            {"vocab", 50368},
            {"ffn_type", "gelu"},
            {"norm", "layernorm"},
            {"position", "learned"},
            {"tied_embeddings", true},
            {"bias", true}}},
          {"training",
           {{"seq_len", m.seq_len},
            {"global_batch", m.global_batch},
            {"micro_batch", m.micro_batch},
            {"precision", "bf16"},
            {"grad_dtype", m.fp32_reduce ? "fp32" : "same"},
            {"recompute", m.recompute ? "full" : "none"},
            {"flash_attention", true},
            {"attention_kernel", "flash-attention-triton"},
            {"cross_entropy", "fused"}}},
          {"parallel", {{"tp", 1}, {"pp", 1}, {"dp", m.gpus}, {"zero", m.zero}}},
          {"cluster", {{"gpu", m.gpu}, {"gpus_per_node", 8}, {"nodes", m.gpus / 8}}}};
}

// d_model, n_heads and n_layers of llm-foundry's scripts/train/yamls/pretrain/mpt-<size>.yaml.
struct MptSize {
  const char* name;
  int hidden, heads, layers;
};
constexpr MptSize kMptSizes[] = {
    {"125m", 768, 12, 12}, {"350m", 1024, 16, 24}, {"760m", 1536, 12, 24},
    {"1b", 2048, 16, 24},  {"3b", 2560, 20, 32},   {"7b", 4096, 32, 32},
    {"13b", 5120, 40, 40}, {"30b", 7168, 56, 48},  {"70b", 8192, 64, 80}};

// The llm-foundry GPU names of the tables as shardsim presets.
std::string gpu_preset(const CsvTable& t, std::size_t r) {
  const std::string& g = t.field(r, "gpu");
  if (g == "h100_80gb") return "h100-sxm";
  if (g == "a100_80gb") return "a100-sxm-80gb";
  if (g == "a100_40gb") return "a100-sxm-40gb";
  throw std::logic_error(fmt::format("{}:{}: GPU \"{}\"", t.file, t.lines[r], g));
}

Case mpt_case(const CsvTable& t, std::size_t r, Group group, const MptRun& m,
              const std::string& gpu_name) {
  Case c = row_case(t, r, group, std::string(kSource), Quantity::kTokensPerSecond, "tokens/s",
                    "tokens_per_second");
  c.description =
      fmt::format("{} {} on {} {}, seq {}, mb{} x ga{}, {}{}", t.field(r, "model"),
                  m.zero == 3 ? "FSDP" : "FSDP grad-op", m.gpus, gpu_name, m.seq_len, m.micro_batch,
                  t.integer(r, "grad_accum"), t.field(r, "precision"), m.recompute ? ", AC" : "");
  c.scenario = mpt_scenario(m);
  return c;
}

}  // namespace

std::vector<Case> mosaicml_cases() {
  const CsvTable t = published_table(kMosaicFile);
  std::vector<Case> out;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    MptRun m;
    m.id = t.field(r, "id");
    m.hidden = t.integer(r, "hidden");
    m.heads = t.integer(r, "heads");
    m.layers = t.integer(r, "layers");
    m.seq_len = t.integer(r, "seq_len");
    m.global_batch = t.integer(r, "global_batch");
    m.micro_batch = t.integer(r, "micro_batch");
    m.gpus = t.integer(r, "gpus");
    m.recompute = t.field(r, "activation_checkpointing") == "yes";
    m.fp32_reduce = mp_mode_of_precision(t, r) == "DEFAULT";
    m.gpu = "a100-sxm-80gb";
    out.push_back(mpt_case(t, r, Group::kMosaicml, m, "A100"));
  }
  return out;
}

std::vector<Case> mosaicml_more_cases() {
  const CsvTable t = published_table(kMosaicMoreFile);
  std::vector<Case> out;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    MptRun m;
    m.id = t.field(r, "id");
    const std::string& size = t.field(r, "model");
    const MptSize* found = nullptr;
    for (const MptSize& s : kMptSizes)
      if (size == s.name) found = &s;
    if (found == nullptr)
      throw std::logic_error(fmt::format("{}:{}: MPT size \"{}\"", t.file, t.lines[r], size));
    m.hidden = found->hidden;
    m.heads = found->heads;
    m.layers = found->layers;
    m.seq_len = t.integer(r, "seq_len");
    m.global_batch = t.integer(r, "global_batch");
    m.micro_batch = t.integer(r, "micro_batch");
    m.gpus = t.integer(r, "gpus");
    m.recompute = t.field(r, "activation_checkpointing") == "True";
    const std::string& sharding = t.field(r, "sharding");
    if (sharding != "FULL_SHARD" && sharding != "SHARD_GRAD_OP")
      throw std::logic_error(fmt::format("{}:{}: sharding \"{}\"", t.file, t.lines[r], sharding));
    m.zero = sharding == "FULL_SHARD" ? 3 : 2;
    const std::string& mp_mode = t.field(r, "mp_mode");
    if (mp_mode != mp_mode_of_precision(t, r))
      throw std::logic_error(fmt::format("{}:{}: MP mode \"{}\" with precision \"{}\"", t.file,
                                         t.lines[r], mp_mode, t.field(r, "precision")));
    m.fp32_reduce = mp_mode == "DEFAULT";
    m.gpu = gpu_preset(t, r);
    const std::string& g = t.field(r, "gpu");
    const std::string gpu_name = g == "h100_80gb"   ? "H100"
                                 : g == "a100_80gb" ? "A100 80GB"
                                                    : "A100 40GB";
    out.push_back(mpt_case(t, r, Group::kMosaicmlMore, m, gpu_name));
  }
  return out;
}

}  // namespace shardsim::suite
