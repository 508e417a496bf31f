// Synthetic pipelines and costs shared by the DES tests (des_test.cc, zero3_test.cc): a GPT of
// pp x vpp tiny layers on h100-sxm, and per-layer costs of one forward f, backward-input b and
// backward-weight w with no communication.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "simulator/cost/step_costs.h"
#include "simulator/plan/plan.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

inline Scenario pipeline(int pp, int vpp, int m, const std::string& schedule) {
  nlohmann::json j = {
      {"model", {{"layers", pp * vpp}, {"hidden", 64}, {"heads", 4}, {"vocab", 1024}}},
      {"training", {{"seq_len", 128}, {"global_batch", m}}},
      {"parallel", {{"pp", pp}, {"vpp", vpp}, {"schedule", schedule}}},
      {"cluster", {{"gpu", "h100-sxm"}, {"gpus_per_node", pp}, {"nodes", 1}}}};
  return scenario_from_json(j, "");
}

// pipeline(pp, 1, m, schedule) with its resolved document changed by `edit` (layers, splits, ZeRO).
template <class Edit>
Scenario edited_pipeline(int pp, int m, const std::string& schedule, Edit edit) {
  nlohmann::json raw = pipeline(pp, 1, m, schedule).resolved;
  edit(raw);
  return scenario_from_json(raw, "");
}

inline StepCosts uniform(const Plan& plan, int layers, double f, double b, double w) {
  StepCosts c;
  std::vector<LayerCost> per_layer(static_cast<std::size_t>(layers));
  for (auto& l : per_layer) {
    l.work.fwd.add(TimeCategory::kCompute, f);
    l.work.bwd_input.add(TimeCategory::kCompute, b);
    l.work.bwd_weight.add(TimeCategory::kCompute, w);
  }
  c.set_layers(std::move(per_layer));
  c.stages.resize(std::size_t(plan.pp));
  return c;
}

// A scenario, its plan and the synthetic costs the tests set (des_test.cc four_layers,
// zero3_test.cc zero3_layers).
struct FourLayers {
  Scenario scenario;
  Plan plan;
  StepCosts costs;
};

}  // namespace shardsim
