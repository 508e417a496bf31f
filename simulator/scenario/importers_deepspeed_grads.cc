// The DeepSpeed importer's gradient settings (importers.cc import_deepspeed): the gradient
// accumulation dtype, and the BF16 optimizer where DeepSpeed runs it.
#include <fmt/format.h>

#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/scenario/importers_detail.h"

namespace shardsim::import_detail {
namespace {

// DeepSpeed's dtype names (DtypeEnum): "fp32", "fp16" or "bf16", or "" for another name.
std::string dtype_name(const std::string& d) {
  if (d == "fp32" || d == "float32" || d == "float" || d == "torch.float32") return "fp32";
  if (d == "fp16" || d == "float16" || d == "half" || d == "torch.float16") return "fp16";
  if (d == "bf16" || d == "bfloat16" || d == "torch.bfloat16") return "bf16";
  return "";
}

}  // namespace

// DeepSpeed accumulates gradients in the model's dtype unless data_types.grad_accum_dtype names
// another (engine.py get_data_types: None means the model dtype; the names are DtypeEnum's).
// fp32 under bf16 or fp16 is the scenario's grad_dtype fp32.
void read_grad_accum_dtype(const nlohmann::json& ds, const std::string& precision,
                           nlohmann::json& training, std::vector<std::string>& warnings) {
  if (!ds.contains("data_types") || ds["data_types"].is_null()) return;
  if (!ds["data_types"].is_object())
    throw InputError("/data_types",
                     fmt::format("must be an object, got {}", json_text(ds["data_types"])));
  for (const auto& [k, v] : ds["data_types"].items()) {
    if (k != "grad_accum_dtype") {
      warnings.push_back("data_types." + k + ": not modelled");
      continue;
    }
    if (v.is_null()) continue;
    if (!v.is_string())
      throw InputError("/data_types/grad_accum_dtype",
                       fmt::format("must be a string, got {}", json_type_name(v)));
    const std::string d = v.get<std::string>();
    const std::string dtype = dtype_name(d);
    if (dtype.empty())
      throw InputError("/data_types/grad_accum_dtype",
                       fmt::format("\"{}\" is not a DeepSpeed dtype (fp32, fp16, bf16)", d));
    if (dtype == "fp32" && precision != "fp32")
      training["grad_dtype"] = "fp32";
    else if (dtype != precision)
      warnings.push_back("data_types.grad_accum_dtype \"" + d +
                         "\": not modelled; gradients are kept in the training precision");
  }
}

// DeepSpeed's BF16 optimizer (engine.py _do_optimizer_sanity_check) runs bf16 with fp32 gradient
// accumulation without ZeRO, and since 2023-01 (#2742, 4be8df721) under ZeRO stage 1 without CPU
// offload too. After every micro-batch's backward it adds each bf16 gradient into its fp32 buffer
// through a copy to fp32 of its own (bf16_optimizer.py update_hp_grads,
// hp_grad.add_(lp.grad.to(fp32)), unchanged from 2022-04 to at least 2025-02):
// grad_accumulation_fusion false, cast separate. It shards the optimizer states over the
// data-parallel ranks as ZeRO-1 does, and all-gathers the updated parameters inside its step.
// Without ZeRO, bf16 gradients depend on the DeepSpeed version: until 2025-08 (#7515, 889f0ead2)
// the BF16 optimizer accumulated them in fp32 by default; since then they stay bf16, and an fp32
// grad_accum_dtype without ZeRO is refused ("unsupported mix", engine.py).
void apply_bf16_optimizer(const std::string& precision, nlohmann::json& training,
                          nlohmann::json& parallel, std::vector<std::string>& warnings) {
  if (precision != "bf16") return;
  const int zero = parallel.value("zero", 0);
  const bool fp32_grads = training.contains("grad_dtype");
  if (fp32_grads && (zero == 0 || (zero == 1 && !parallel.value("offload_optimizer", false)))) {
    training["grad_accumulation_fusion"] = false;
    training["grad_accumulation_cast"] = "separate";
    parallel["zero"] = 1;
    parallel["overlap_param_gather"] = false;
  }
  if (zero != 0) return;
  if (fp32_grads)
    warnings.push_back(
        "data_types.grad_accum_dtype fp32 without ZeRO: DeepSpeed since 2025-08 refuses this mix "
        "with bf16; older versions ran it with their BF16 optimizer, modelled: fp32 gradients, "
        "each micro-batch's added through a copy to fp32, and the optimizer states sharded as "
        "ZeRO-1 shards them (parallel.zero 1)");
  else
    warnings.push_back(
        "bf16 without ZeRO: modelled with bf16 gradients, as DeepSpeed since 2025-08 keeps them; "
        "older versions accumulated them in fp32 with their BF16 optimizer, each micro-batch's "
        "through a copy to fp32 (set training.grad_dtype fp32, grad_accumulation_fusion false, "
        "grad_accumulation_cast separate and parallel.zero 1)");
}

}  // namespace shardsim::import_detail
