// The vTrain groups of the validation suite (cases.h): the single-node and multi-node measured
// iterations of github.com/VIA-Research/vTrain @ f8dda84 turned into scenarios. Every modelling
// choice is written next to its scenario builder, with the reason; the same text is in README
// "Validation against published runs".
#include <fmt/format.h>

#include <algorithm>

#include "simulator/scenario/presets.h"
#include "simulator/suite/cases.h"
#include "simulator/suite/csv.h"

namespace shardsim::suite {
namespace {

constexpr std::string_view kVtrainFile = "published/vtrain-ground-truth-single.csv";
constexpr std::string_view kVtrainMultiFile = "published/vtrain-ground-truth-multi.csv";

// The GPU count of a vTrain row: column "GPUs" in the single-node file, "# GPUs" in the multi-node
// one (both copies keep the source's header).
int vtrain_gpus(const CsvTable& t, std::size_t r) {
  const bool single = std::find(t.columns.begin(), t.columns.end(), "GPUs") != t.columns.end();
  return t.integer(r, single ? "GPUs" : "# GPUs");
}

// vTrain (Bang et al., MICRO 2024): Megatron-DeepSpeed GPT on one A100 node. The data give the
// shape and the parallel degrees; the rest is Megatron's GPT as the vTrain project ran it:
// - FFN 4h with GeLU, LayerNorm, learned positions, tied input/output embeddings, biases, and
//   dropout: vTrain's configs name no dropout setting, so Megatron's default (hidden and
//   attention dropout 0.1) is assumed.
// - Vocabulary 50257 (GPT-2 BPE), which Megatron pads to a multiple of 128 x TP
//   (make-vocab-size-divisible-by 128); shardsim applies the same padding (model/params.h).
// - fp16 mixed precision with Adam, full activation recomputation (vTrain's use_checkpoint), no
//   flash attention, 1F1B, ZeRO 0, no sequence parallelism; Megatron's vocabulary-parallel fp32
//   loss (the default training.cross_entropy; Megatron-DeepSpeed's GPT computes its loss with
//   that function).
// - Gradient bucketing off (use_gradient_bucket: false): one all-reduce of the whole gradient
//   after the backward pass, not overlapped (single_gradient_bucket, overlap_grad_reduce false).
// - A100 SXM 80GB: the data do not say 40 or 80 GB; both have the same peak FLOP/s, and the
//   80 GB part's HBM is faster (2.0 vs 1.6 TB/s). One node whose size is the row's GPU count.
nlohmann::json vtrain_scenario(const CsvTable& t, std::size_t r) {
  const int hidden = t.integer(r, "hidden size");
  return {
      {"name", fmt::format("vtrain-row-{}", r)},
      {"model",
       {{"layers", t.integer(r, "# layers")},
        {"hidden", hidden},
        {"heads", t.integer(r, "attention heads")},
        {"ffn_hidden", 4 * hidden},
        {"vocab", 50257},
        {"ffn_type", "gelu"},
        {"norm", "layernorm"},
        {"position", "learned"},
        {"tied_embeddings", true},
        {"bias", true},
        {"dropout", true}}},
      {"training",
       {{"seq_len", t.integer(r, "sequence length")},
        {"global_batch", t.integer(r, "global batch")},
        {"micro_batch", t.integer(r, "micro batch")},
        {"precision", "fp16"},
        {"optimizer", "adam"},
        {"recompute", "full"},
        {"flash_attention", false}}},
      {"parallel",
       {{"tp", t.integer(r, "tensor parallelism")},
        {"pp", t.integer(r, "pipeline parallelism")},
        {"dp", t.integer(r, "data parallelism")},
        {"sp", false},
        {"zero", 0},
        {"schedule", "1f1b"},
        {"overlap_grad_reduce", false}}},
      {"cluster", {{"gpu", "a100-sxm-80gb"}, {"gpus_per_node", vtrain_gpus(t, r)}, {"nodes", 1}}}};
}

// vTrain's multi-node cluster (config/validation/multi/*.json at f8dda84): A100 nodes of 8 with
// NVSwitch (intra_node_bandwidth 150, the A100 ring figure) and inter_node_bandwidth 800, which
// vTrain's predictor reads as Gb/s per node: 100 Gb/s per GPU, half a DGX A100's one 200 Gb/s HDR
// NIC per GPU. The network is the fitted dgx-a100 preset with that NIC share:
// - its single-node fitted collectives (NVLink/NVSwitch, the same hardware) are kept;
// - its multi-node ones, measured with 200 Gb/s per GPU, are dropped, so groups that cross nodes
//   take the link formula;
// - inter_node_Gbps, fitted as 192.2 Gb/s on its declared 200 Gb/s line rate, is scaled by the
//   line-rate ratio 100/200 (the same fitted link efficiency on half the links), and the line
//   rate becomes 100 Gb/s.
// It is marked unfitted: the inter-node rate comes from a config value, not from a measurement.
nlohmann::json vtrain_multi_network() {
  constexpr double kVtrainNicShareGbps = 800.0 / 8;  // per node / GPUs per node
  nlohmann::json net = *find_preset(PresetKind::kCluster, "dgx-a100");
  const double line_ratio = kVtrainNicShareGbps / net["inter_node_line_Gbps"].get<double>();
  net["inter_node_Gbps"] = net["inter_node_Gbps"].get<double>() * line_ratio;
  net["inter_node_line_Gbps"] = kVtrainNicShareGbps;
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& f : net["fitted_collectives"])
    if (f["ranks"] == f["ranks_per_node"]) kept.push_back(f);
  net["fitted_collectives"] = kept;
  net["name"] = "vtrain-a100-4xhdr";
  net["description"] =
      "vTrain's multi-node A100 cluster: the fitted dgx-a100 network with 100 Gb/s of NIC line "
      "rate per GPU (800 Gb/s per node of 8) instead of 200; single-node fitted collectives kept, "
      "multi-node ones dropped";
  net["provenance"]["fitted"] = false;
  net["provenance"]["note"] =
      "derived in the validation suite from dgx-a100 (fitted) and vTrain's configs "
      "(inter_node_bandwidth 800 Gb/s per 8-GPU node); the inter-node rate is not measured";
  return net;
}

// One vTrain multi-node row: the single-node scenario (same model, training and Megatron
// settings) on nodes of 8 over vtrain_multi_network().
nlohmann::json vtrain_multi_scenario(const CsvTable& t, std::size_t r) {
  nlohmann::json s = vtrain_scenario(t, r);
  s["name"] = fmt::format("vtrain-multi-row-{}", r);
  const int gpus = vtrain_gpus(t, r);
  s["cluster"] = {{"gpu", "a100-sxm-80gb"},
                  {"gpus_per_node", 8},
                  {"nodes", gpus / 8},
                  {"network", vtrain_multi_network()}};
  return s;
}

std::string vtrain_description(const CsvTable& t, std::size_t r) {
  return fmt::format("{} GPUs TP{} DP{} PP{}, h{} L{}, mb{} gb{}", vtrain_gpus(t, r),
                     t.integer(r, "tensor parallelism"), t.integer(r, "data parallelism"),
                     t.integer(r, "pipeline parallelism"), t.integer(r, "hidden size"),
                     t.integer(r, "# layers"), t.integer(r, "micro batch"),
                     t.integer(r, "global batch"));
}

}  // namespace

bool vtrain_calibration_row(int row_index) {
  return row_index % 2 == 0;
}

namespace {

// What every vTrain row's case shares (either file): a measured step time in ms, one gradient
// bucket (bucketing off). The caller sets id, group, source, description and scenario.
Case vtrain_row_case(const CsvTable& t, std::size_t r, std::string_view file) {
  Case c;
  // Strings moved in rather than literals assigned: GCC 12 reports a false -Wrestrict on the
  // inlined literal assignments here.
  c.status = std::string("V");
  c.quantity = Quantity::kStepSeconds;
  c.unit = std::string("s");
  c.published = t.number(r, "iteration time (ms)") / 1e3;
  c.file = std::string(file);
  c.row_index = int(r);
  c.single_gradient_bucket = true;
  return c;
}

}  // namespace

std::vector<Case> vtrain_cases() {
  const CsvTable t = published_table(kVtrainFile, /*header_in_comment=*/true);
  std::vector<Case> out;
  out.reserve(t.rows.size());
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    Case c = vtrain_row_case(t, r, kVtrainFile);
    c.id = fmt::format("vtrain/row-{:04}", r);
    c.group = Group::kVtrain;
    c.source = "vTrain @ f8dda84 data/ground_truth_single.csv (Bang et al., MICRO 2024)";
    c.description = vtrain_description(t, r);
    c.calibration_subset = vtrain_calibration_row(int(r));
    c.scenario = vtrain_scenario(t, r);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<Case> vtrain_multi_cases() {
  const CsvTable t = published_table(kVtrainMultiFile, /*header_in_comment=*/true);
  std::vector<Case> out;
  out.reserve(t.rows.size());
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    Case c = vtrain_row_case(t, r, kVtrainMultiFile);
    c.id = fmt::format("vtrain-multi/row-{:03}", r);
    c.group = Group::kVtrainMulti;
    c.source = "vTrain @ f8dda84 data/ground_truth_multi.csv (Bang et al., MICRO 2024)";
    c.description =
        fmt::format("{}B, {}", t.field(r, "Parameters (billion)"), vtrain_description(t, r));
    c.scenario = vtrain_multi_scenario(t, r);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace shardsim::suite
