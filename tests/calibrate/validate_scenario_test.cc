// composite_scenario (calibrate/validate.h) always gives evaluate a network: a profile from a
// single-rank `calibrate` has no network section and no node.network, which used to make the
// scenario loader throw "/cluster/network: is required" after minutes of measuring.
#include <gtest/gtest.h>

#include <cmath>

#include "calibrate/validate.h"
#include "simulator/core/diagnostics.h"
#include "simulator/scenario/presets.h"

namespace shardsim::calibrate {
namespace {

GpuProfile preset_profile() {
  GpuProfile g;
  Diagnostics d;
  read_gpu_profile(*find_preset(PresetKind::kGpu, "h100-sxm"), "", d, g);
  EXPECT_TRUE(d.empty()) << d.format();
  return g;
}

TEST(validate_scenario, ProfileWithoutAnyNetworkGetsThePlaceholder) {
  GpuProfile g = preset_profile();
  g.network.reset();
  g.default_network.clear();  // what a single-rank cpu calibrate writes
  const auto s = composite_scenario(composite_config(true, kernels::BackendKind::kCpu), 1, 1, g);
  EXPECT_EQ(s["cluster"]["network"]["name"], placeholder_network().name);
  const StepPrediction p = predict_step(s);  // threw InputError before the fix
  // Any one-rank step takes a positive, finite time (the composite does real GEMMs).
  EXPECT_GT(p.des_seconds, 0);
  EXPECT_TRUE(std::isfinite(p.des_seconds));
  EXPECT_GT(p.analytic_seconds, 0);
  EXPECT_TRUE(std::isfinite(p.analytic_seconds));
}

TEST(validate_scenario, ProfileNetworkSectionIsUsed) {
  GpuProfile g = preset_profile();
  NetworkConfig n = placeholder_network();
  n.name = "measured-net";
  g.network = n;
  const auto s = composite_scenario(composite_config(true, kernels::BackendKind::kCpu), 2, 2, g);
  EXPECT_EQ(s["cluster"]["network"]["name"], "measured-net");
  EXPECT_GT(predict_step(s).des_seconds, 0);
}

TEST(validate_scenario, NodeNetworkPresetLeftToTheLoader) {
  // h100-sxm names a node.network preset: no cluster.network, the loader resolves the preset.
  const GpuProfile g = preset_profile();
  ASSERT_FALSE(g.default_network.empty());
  const auto s = composite_scenario(composite_config(true, kernels::BackendKind::kCpu), 2, 2, g);
  EXPECT_FALSE(s["cluster"].contains("network"));
  EXPECT_GT(predict_step(s).des_seconds, 0);
}

// The composite multiplies with cuBLAS SGEMM, TF32 math off (kernels/cuda/composite.h), so its
// scenario says training.tf32 false: its GEMMs are priced at the FP32 peak and the fp32 table.
// Before 2026-11-28 there was no such key and an fp32 scenario was priced at TF32 on profiles
// without fp32 points. With the flag turned on, the same step is priced faster (the h100-sxm
// preset's TF32 peak is 494.7 against 67 TFLOP/s for FP32, compute_test derives the GEMM ratio).
TEST(validate_scenario, TheCompositeRunsWithoutTf32) {
  const GpuProfile g = preset_profile();
  auto s = composite_scenario(composite_config(true, kernels::BackendKind::kCpu), 1, 1, g);
  EXPECT_EQ(s["training"]["precision"], "fp32");
  EXPECT_EQ(s["training"]["tf32"], false);
  const double sgemm = predict_step(s).des_seconds;
  s["training"]["tf32"] = true;
  EXPECT_LT(predict_step(s).des_seconds, sgemm);
}

}  // namespace
}  // namespace shardsim::calibrate
