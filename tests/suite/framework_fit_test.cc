// The framework preset megatron-eager is fitted on the named vTrain calibration subset (even rows)
// by `shardsim suite --fit-framework` (simulator/suite/framework_fit.h). The shipped file must be
// what that command gives today (rebuild it after a model change: README "The host as a
// resource"), and the rows the fit never saw must be predicted better than without a host cost.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "simulator/scenario/presets.h"
#include "simulator/suite/framework_fit.h"

namespace shardsim::suite {
namespace {

TEST(framework_fit, ShippedPresetIsTheFitOfTheCalibrationRows) {
  const FrameworkFit fit = fit_framework("megatron-eager", Mode::kDes);
  const auto shipped = find_preset(PresetKind::kFramework, "megatron-eager");
  ASSERT_TRUE(shipped.has_value());
  EXPECT_TRUE((*shipped)["fitted"].get<bool>());
  // The fit is deterministic (Nelder-Mead from a fixed start): the same numbers to rounding.
  const std::pair<const char*, double> fitted[] = {
      {"op_dispatch_s", fit.framework.op_dispatch_s},
      {"collective_dispatch_s", fit.framework.collective_dispatch_s},
      {"step_overhead_s", fit.framework.step_overhead_s},
      {"host_sync_fraction", fit.framework.host_sync_fraction}};
  for (const auto& [key, got] : fitted) {
    ASSERT_TRUE(shipped->contains(key)) << key;
    const double want = (*shipped)[key].get<double>();
    EXPECT_NEAR(got, want, 1e-9 * std::max(1e-12, std::fabs(want))) << key;
  }
  // A fraction: the fit keeps it within [0, 1] (framework_fit.cc caps it).
  EXPECT_GE(fit.framework.host_sync_fraction, 0);
  EXPECT_LE(fit.framework.host_sync_fraction, 1);
  EXPECT_EQ((*shipped)["source"].get<std::string>(), fit.framework.source);
  // The held-out (odd) rows were never seen by the fit: their error must fall too.
  EXPECT_EQ(fit.held_out.count, 720);
  EXPECT_LT(fit.held_out.mape, fit.before_held_out.mape);
}

}  // namespace
}  // namespace shardsim::suite
