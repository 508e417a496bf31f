// `shardsim validate`: measure a composite training step and single kernels with the backend's
// kernels, predict the same with a hardware profile through the simulator, report the errors.
//
// Step: the backend's run_composite (kernels/common/composite.h) runs the workload;
// composite_scenario() describes the same work as a Scenario (model dims, fp32, Adam, dp = ranks,
// tp = pp = 1, unfused attention, one gradient all-reduce after the backward pass, the profile as
// cluster.gpu and its fitted network) and evaluate() predicts its step time (DES; the analytic
// figure is reported too). Items: GEMMs, memory-bound kernels and all-reduces measured now with the
// backend's descriptors through the one timing loop, predicted by gemm_cost / memory_bound_cost /
// collective_cost. held_out: the size is not one the profile was fitted on (a GEMM shape absent
// from gemm_points, memory-bound bytes absent from memory_bound_points, a collective size that
// is no power of two, which no sweep uses).
// Error: abs_pct_error = 100 |predicted - measured| / measured.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/common/backend.h"
#include "kernels/common/comm.h"
#include "kernels/common/composite.h"
#include "simulator/cost/time_split.h"
#include "simulator/hardware/hardware.h"

namespace shardsim::calibrate {

struct ValidationItem {
  std::string name;
  std::string kind;  // gemm, memory_bound, collective
  double measured_seconds = 0;
  double predicted_seconds = 0;
  double abs_pct_error = 0;
  bool held_out = false;
};

// One phase of the composite step: measured (median over the timed steps of the maximum over
// ranks) against the DES breakdown's exposed seconds of the same work.
struct ValidationPhase {
  std::string name;  // forward_backward (breakdown compute + recompute), grad_allreduce (dp_comm),
                     // optimizer (optimizer)
  double measured_seconds = 0;
  double predicted_seconds = 0;
  double abs_pct_error = 0;
};

struct ValidationStep {
  double measured_seconds = 0;
  double predicted_seconds = 0;  // DES
  double abs_pct_error = 0;
  double predicted_analytic_seconds = 0;
  std::vector<double> samples_s;
  bool verified = false;
  std::string verification;
  std::vector<ValidationPhase> phases;
};

struct ValidationResult {
  std::vector<ValidationItem> items;
  ValidationStep step;
  double held_out_median_abs_pct_error = 0;  // over items with held_out; 0 when none
  double fitted_median_abs_pct_error = 0;    // over the others
  kernels::CompositeConfig composite;
  nlohmann::json scenario;  // what evaluate() was given (the profile abbreviated to its name)
  int ranks = 1;
  int ranks_per_node = 1;
};

// The composite workload for `quick` (shorter timing) or the full run.
// The composite model of each backend: the cpu default (CompositeConfig) or a larger one on cuda.
[[nodiscard]] kernels::CompositeConfig composite_config(bool quick, kernels::BackendKind kind);

// The Scenario JSON of the composite step on `ranks` ranks, `ranks_per_node` per node.
[[nodiscard]] nlohmann::json composite_scenario(const kernels::CompositeConfig& c, int ranks,
                                                int ranks_per_node, const GpuProfile& profile);

// The network composite_scenario() uses when the profile has neither a network section nor a
// node.network preset (a single-rank `calibrate`): placeholder values for one node running MPI
// over shared memory, not measurements (see validate.cc).
[[nodiscard]] NetworkConfig placeholder_network();

// Predicted step seconds of `scenario` in DES and analytic mode. Throws InputError for a scenario
// the loader rejects, std::runtime_error when the plan is infeasible (with the reasons).
struct StepPrediction {
  double des_seconds = 0;
  double analytic_seconds = 0;
  TimeSplit des_breakdown;  // exposed seconds per category; sums to des_seconds
};
[[nodiscard]] StepPrediction predict_step(const nlohmann::json& scenario);

// 100 |predicted - measured| / measured; +infinity for measured <= 0.
[[nodiscard]] double abs_pct_error(double predicted, double measured);

// Builds and predicts the composite scenario for `profile` on `world` without measuring anything
// (collective: every rank calls it), so a profile the scenario loader rejects fails before the
// sweep. Throws InputError (bad profile for the scenario) or std::runtime_error (infeasible).
void check_composite_scenario(bool quick, kernels::BackendKind kind, const GpuProfile& profile,
                              const kernels::Comm& world);

// Runs everything on every rank of `world` in lockstep (collective). Throws CallError.
// `on_phase`, when set, is called before each item with the item's name and before the composite
// step with "composite step", so the caller can name what was running when a rank was lost
// (validate_command.cc); `done` counts the items measured before it.
using PhaseHook = std::function<void(const std::string& phase, std::size_t done)>;
[[nodiscard]] ValidationResult run_validation(bool quick, const GpuProfile& profile,
                                              kernels::Backend& backend, const kernels::Comm& world,
                                              const PhaseHook& on_phase = {});

// Report: {schema_version, tool_version, profile, composite, validation: {items, step,
// held_out_median_abs_pct_error, ...}} (reports/schemas/validation-report.schema.json).
[[nodiscard]] nlohmann::json validation_json(const ValidationResult& r, const GpuProfile& profile);
[[nodiscard]] std::string validation_text(const ValidationResult& r, const GpuProfile& profile);

}  // namespace shardsim::calibrate
