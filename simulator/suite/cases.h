// The validation suite's cases: published measurements (each turned into a scenario JSON that
// scenario_from_json reads, so every scenario key the model learns later applies to them) and
// closed-form memory values, read from the embedded files of scenarios/published/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace shardsim::suite {

enum class Group {
  kVtrain,
  kVtrainMulti,
  kKorthikanti,
  kNarayanan,
  kMcore,
  kMosaicml,
  kMosaicmlMore,
  kH100Pytorch,
  kH200Pytorch,
  kBloom,
  kMemory
};
inline constexpr Group kAllGroups[] = {
    Group::kVtrain,      Group::kVtrainMulti, Group::kKorthikanti,  Group::kNarayanan,
    Group::kMcore,       Group::kMosaicml,    Group::kMosaicmlMore, Group::kH100Pytorch,
    Group::kH200Pytorch, Group::kBloom,       Group::kMemory};

[[nodiscard]] std::string group_name(Group g);  // "vtrain", "korthikanti", ...
[[nodiscard]] std::optional<Group> group_from_name(std::string_view name);
[[nodiscard]] std::vector<std::string> group_names();
// One line: the group's source and what it measures.
[[nodiscard]] std::string group_source(Group g);

// What a case compares. Prediction cases read one number of an Estimate; memory cases one closed
// form of simulator/memory.
enum class Quantity {
  kStepSeconds,           // time.step_seconds
  kTflopsPerGpu,          // throughput.model_tflops_per_gpu (Megatron's FLOP convention)
  kHardwareTflopsPerGpu,  // throughput.hardware_tflops_per_gpu (recomputation counted)
  kTokensPerSecond,       // throughput.tokens_per_second, all GPUs together
  kMemory,                // a closed-form memory value (bytes, parameters or bytes per parameter)
};
[[nodiscard]] std::string quantity_name(Quantity q);

// A closed-form memory case: which formula, its inputs, how the source printed the value.
struct ClosedForm {
  std::string kind;                           // zero_states, deepspeed_zero3, layer_activations...
  std::map<std::string, std::string> inputs;  // key=value pairs of the data file
  int decimals = 0;                           // the printed value's decimals ("decimals:N")
  bool shift20 = false;                       // printed as integer bytes >> 20 (DeepSpeed MiB)
};

struct Case {
  std::string id;  // unique, e.g. "vtrain/row-0017", "KOR-03/175B/full", "MPT-A3"
  Group group = Group::kVtrain;
  std::string source;  // where the published value comes from
  std::string status;  // the source's status tag: V, V2, D, U-check, M (measured here)
  Quantity quantity = Quantity::kStepSeconds;
  std::string unit;  // unit of `published` (and of the prediction): "s", "GiB", ...
  double published = 0;
  std::string file;         // the embedded data file
  int row_index = 0;        // 0-based data row of that file
  std::string description;  // the case's configuration in a few words
  // vTrain only: whether the row belongs to the named calibration subset (vtrain_calibration_row).
  std::optional<bool> calibration_subset;
  nlohmann::json scenario;  // prediction cases: the scenario document (scenario_from_json)
  // vTrain: one gradient all-reduce per step. The bucket is set to the model's whole gradient
  // (overheads.ddp_bucket_bytes) once the scenario is parsed, when this is true.
  bool single_gradient_bucket = false;
  ClosedForm closed_form;  // memory cases
};

// The ONE subset rule for any global correction fitted on vTrain rows (issue 9: a correction may be
// fitted only on a named subset and must be reported on the rest): the 0-based data-row index of
// published/vtrain-ground-truth-single.csv is even. Odd rows are held out.
[[nodiscard]] bool vtrain_calibration_row(int row_index);

struct CsvTable;
// What a case of data row `r` of `t` shares with the other published cases: id and status (the
// columns "id" and "status"), group, source, quantity and unit, the published value (column
// `value_column`), the file and the row. The caller sets the description and the scenario.
[[nodiscard]] Case row_case(const CsvTable& t, std::size_t r, Group g, std::string source,
                            Quantity q, std::string unit, std::string_view value_column);

// Every case of a group, in file order.
[[nodiscard]] std::vector<Case> vtrain_cases();
[[nodiscard]] std::vector<Case> vtrain_multi_cases();
[[nodiscard]] std::vector<Case> korthikanti_cases();
[[nodiscard]] std::vector<Case> narayanan_cases();
[[nodiscard]] std::vector<Case> mcore_cases();
[[nodiscard]] std::vector<Case> mosaicml_cases();
[[nodiscard]] std::vector<Case> mosaicml_more_cases();
[[nodiscard]] std::vector<Case> h100_pytorch_cases();
[[nodiscard]] std::vector<Case> h200_pytorch_cases();
[[nodiscard]] std::vector<Case> bloom_cases();
[[nodiscard]] std::vector<Case> memory_cases();
[[nodiscard]] std::vector<Case> cases_of(Group g);

// Korthikanti et al. 2022 Table 3 model on A100 80GB (KOR-03): the scenario of one configuration.
// `recompute` is "full", "selective" (with sequence parallelism, the paper's "present work") or
// "none". Shared with tests/validation/published_runs_test.cc.
struct KorthikantiConfig {
  int heads = 0, hidden = 0, layers = 0, tp = 1, pp = 1, global_batch = 1, micro_batch = 1;
};
[[nodiscard]] nlohmann::json korthikanti_scenario(const KorthikantiConfig& c,
                                                  std::string_view recompute);

}  // namespace shardsim::suite
