// Cases of single measured runs that are not a published table: shardsim's own PyTorch GPT steps
// on one H100 and on one H200, and BLOOM 176B's logged iteration. Every modelling choice made for a
// source is written next to its scenario builder, with the reason; the README says the same.
#include <fmt/format.h>

#include <algorithm>

#include "simulator/suite/cases.h"
#include "simulator/suite/csv.h"

namespace shardsim::suite {
namespace {

constexpr std::string_view kH100PytorchFile = "published/shardsim-h100-pytorch-gpt.csv";
constexpr std::string_view kH200PytorchFile = "published/shardsim-h200-pytorch-gpt.csv";
constexpr std::string_view kBloomFile = "published/bigscience2022-bloom176b.csv";

// Korthikanti's GPT layer, as the PyTorch script and BLOOM's Megatron-DeepSpeed ran it: GeLU MLP
// of 4h, LayerNorm, learned positions, biases, dropout, tied embeddings.
nlohmann::json gpt_model(int layers, int hidden, int heads, int vocab) {
  return {{"layers", layers},   {"hidden", hidden},       {"heads", heads},        {"vocab", vocab},
          {"ffn_type", "gelu"}, {"norm", "layernorm"},    {"position", "learned"}, {"bias", true},
          {"dropout", true},    {"tied_embeddings", true}};
}

}  // namespace

// The PyTorch GPT steps measured on one GPU (each data file's header and its run's README under
// scenarios/measurements/calibrate/ say how). The scenario writes what the script ran:
// Korthikanti's GPT layer (GeLU MLP of 4h, LayerNorm, learned positions, biases, dropout, tied
// embeddings), vocabulary 51200, flash attention (SDPA's flash backend, forced), bf16 with fp32
// gradient buffers (grad_dtype fp32: the script adds each bf16 gradient into an fp32 buffer and
// frees it, Megatron's main_grad), AdamW, the row's recomputation (none, or full: every block
// checkpointed), one GPU. The loss is the default "vocab-parallel" one: at TP 1 that is an
// unfused fp32 cross-entropy, as the script's F.cross_entropy on .float() logits is. The
// framework is the default (megatron-eager): no framework preset is fitted on plain PyTorch, and
// none is fitted on these steps. The attention kernel is the profile's measurement of what SDPA
// ran where one exists (the H200's pytorch-sdpa-flash, measured on 2026-11-30 without dropout;
// the script runs attention dropout 0.1 inside the kernel), else FlashAttention-2's published
// rates (the H100: PyTorch's port is not measured there). The script's hook adds each bf16
// gradient into its fp32 buffer (grad_accumulation_fusion false) and clip_grad_norm_ scales
// every gradient every step (grad_clip_scaling always).
namespace {

struct PytorchRun {
  std::string_view file, gpu_preset, gpu_label, source, attention_kernel;
  Group group;
};

std::vector<Case> pytorch_cases(const PytorchRun& run) {
  const CsvTable t = published_table(run.file);
  const bool has_recompute = std::ranges::find(t.columns, "recompute") != t.columns.end();
  std::vector<Case> out;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    Case c =
        row_case(t, r, run.group, std::string(run.source), Quantity::kStepSeconds, "s", "step_s");
    const int hidden = t.integer(r, "hidden"), seq = t.integer(r, "seq_len");
    const int mb = t.integer(r, "micro_batch");
    const std::string recompute = has_recompute ? t.field(r, "recompute") : "none";
    c.description = fmt::format(
        "GPT h{} {} layers, seq {}, mb {}{} on 1 {}, PyTorch eager", hidden, t.integer(r, "layers"),
        seq, mb, recompute == "none" ? "" : ", recompute " + recompute, run.gpu_label);
    c.scenario = {
        {"name", c.id},
        {"model", gpt_model(t.integer(r, "layers"), hidden, t.integer(r, "heads"), 51200)},
        {"training",
         {{"seq_len", seq},
          {"global_batch", mb},
          {"micro_batch", mb},
          {"precision", "bf16"},
          {"grad_dtype", "fp32"},
          {"grad_accumulation_fusion", false},
          {"grad_clip_scaling", "always"},
          {"optimizer", "adamw"},
          {"recompute", recompute},
          {"flash_attention", true},
          {"attention_kernel", std::string(run.attention_kernel)}}},
        {"parallel", {{"tp", 1}, {"pp", 1}, {"zero", 0}}},
        {"cluster", {{"gpu", std::string(run.gpu_preset)}, {"gpus_per_node", 1}, {"nodes", 1}}}};
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::vector<Case> h100_pytorch_cases() {
  return pytorch_cases({kH100PytorchFile, "h100-sxm", "H100",
                        "shardsim's own H100 run, scenarios/measurements/calibrate/"
                        "h100-sxm-2026-11-28 (torch-gpt.py)",
                        "flash-attention-2", Group::kH100Pytorch});
}

std::vector<Case> h200_pytorch_cases() {
  return pytorch_cases({kH200PytorchFile, "h200-sxm", "H200",
                        "shardsim's own H200 run, scenarios/measurements/calibrate/"
                        "h200-sxm-2026-11-30 (torch_gpt.py)",
                        "pytorch-sdpa-flash", Group::kH200Pytorch});
}

// BLOOM 176B's main run (the CSV header names the sources: the run's slurm script, README and
// log). The scenario writes what the script ran; where it is silent, the choice and its reason:
// - GPT blocks with GeLU MLP of 4h, LayerNorm, biases, tied embeddings, dropout (Megatron's
//   default 0.1: the script sets none); no flash attention (Megatron's fused softmax, 2022).
// - ALiBi adds a bias inside that fused softmax and has no table: shardsim has no such position
//   type, and "learned" is taken (its 2048 x 14336 table is 0.02 % of the parameters; its add is
//   one element-wise op). --embed-layernorm's one extra LayerNorm is left out.
// - --pp-partition-method 'type:transformer|embedding' balances 72 layers, the two embedding
//   layers counted as blocks, over 12 stages: the first and last hold 5 blocks besides the
//   embedding and the (tied) output layer, the others 6 (first/last_stage_layers).
// - bf16 with DeepSpeed's bf16 optimizer under ZeRO stage 0: it shards the optimizer states over
//   the data-parallel ranks (ZeRO-1) and accumulates fp32 gradients (grad_dtype fp32): after every
//   micro-batch's backward it adds each bf16 weight gradient into its fp32 buffer through a copy
//   to fp32 of its own, hp_grad.add_(lp.grad.to(fp32)) (DeepSpeed 93e9307d6, the commit the run's
//   README names; grad_accumulation_fusion false, grad_accumulation_cast separate). The fork's
//   Megatron layers have no accumulation fusion (bigscience-workshop/Megatron-DeepSpeed).
//   DeepSpeed's pipeline engine reduces the gradients after the last micro-batch, not overlapped;
//   its schedule is 1F1B.
// - The network (cluster.network, not fitted: the run published no collective measurement):
//   NVLink through an HGX A100 board's NVSwitch, the DGX A100 datasheet's 300 GB/s per GPU per
//   direction and 15 us start-up (dgx-a100-datasheet); 4 x 100 Gb/s Omni-Path per node, 50 Gb/s
//   per GPU, with InfiniBand's 38.6 us two-node start-up as the prior (no Omni-Path figure).
// The framework is the default megatron-eager (Megatron-DeepSpeed is Megatron's eager stack).
std::vector<Case> bloom_cases() {
  const CsvTable t = published_table(kBloomFile);
  std::vector<Case> out;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    Case c = row_case(t, r, Group::kBloom,
                      "bigscience-workshop/bigscience train/tr11-176B-ml @ ed196cd266 "
                      "(tr11-176B-ml.slurm, README.md, chronicles.md)",
                      Quantity::kStepSeconds, "s", "iteration_s");
    const int tp = t.integer(r, "tp"), pp = t.integer(r, "pp"), dp = t.integer(r, "dp");
    c.description = fmt::format(
        "BLOOM 176B on {} A100 80GB, TP{} PP{} DP{}, gb{} mb{}, full "
        "recompute, DeepSpeed pipeline",
        t.integer(r, "gpus"), tp, pp, dp, t.integer(r, "global_batch"),
        t.integer(r, "micro_batch"));
    c.scenario = {{"name", c.id},
                  {"model", gpt_model(t.integer(r, "layers"), t.integer(r, "hidden"),
                                      t.integer(r, "heads"), t.integer(r, "vocab_padded"))},
                  {"training",
                   {{"seq_len", t.integer(r, "seq_len")},
                    {"global_batch", t.integer(r, "global_batch")},
                    {"micro_batch", t.integer(r, "micro_batch")},
                    {"precision", "bf16"},
                    {"grad_dtype", "fp32"},
                    {"grad_accumulation_fusion", false},
                    {"grad_accumulation_cast", "separate"},
                    {"optimizer", "adam"},
                    {"recompute", "full"},
                    {"flash_attention", false}}},
                  {"parallel",
                   {{"tp", tp},
                    {"pp", pp},
                    {"dp", dp},
                    {"zero", 1},
                    {"schedule", "1f1b"},
                    {"overlap_grad_reduce", false},
                    {"first_stage_layers", t.integer(r, "first_stage_layers")},
                    {"last_stage_layers", t.integer(r, "last_stage_layers")}}},
                  {"cluster",
                   {{"gpu", "a100-sxm-80gb"},
                    {"gpus_per_node", 8},
                    {"nodes", t.integer(r, "gpus") / 8},
                    {"network",
                     {{"intra_node_GBps", 300},
                      {"intra_node_latency_us", 15.0},
                      {"intra_node_line_GBps", 300},
                      {"inter_node_Gbps", 50},
                      {"inter_node_latency_us", 38.6},
                      {"inter_node_line_Gbps", 50}}}}}};
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace shardsim::suite
