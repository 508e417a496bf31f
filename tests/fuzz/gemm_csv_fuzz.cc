// Fuzz target: the GEMM CSV reader and the measured-efficiency table built from it (what `shardsim
// fit --gemm-csv FILE` does). Input: CSV text. Property: rows or an error naming the line (never
// a throw); rows within an A100's peaks become efficiency points in (0, 1] whose leave-one-out
// errors are finite.
#include <cstddef>
#include <cstdint>
#include <variant>

#include "calibrate/compute_fit.h"
#include "simulator/scenario/presets.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::init_once();
  const auto rows = calibrate::parse_gemm_csv(fuzz::as_text(data, size), "fuzz.csv", "");
  if (const auto* err = std::get_if<std::string>(&rows)) {
    if (err->empty()) fuzz::fail("parse error without a message");
    return 0;
  }
  static const GpuProfile gpu = [] {
    GpuProfile g;
    Diagnostics d;
    read_gpu_profile(*find_preset(PresetKind::kGpu, "a100-sxm-80gb"), "", d, g);
    if (!d.empty()) fuzz::fail("the a100-sxm-80gb preset does not load");
    return g;
  }();
  const auto points = calibrate::gemm_points(
      std::get<std::vector<calibrate::GemmMeasurement>>(rows), gpu.peak, "fuzz.csv");
  if (const auto* err = std::get_if<std::string>(&points)) {
    if (err->empty()) fuzz::fail("gemm_points error without a message");
    return 0;
  }
  const auto& pts = std::get<std::vector<GemmPoint>>(points);
  for (const GemmPoint& p : pts)
    if (!(p.efficiency > 0 && p.efficiency <= 1)) fuzz::fail("efficiency outside (0, 1]");
  for (const double pct : calibrate::gemm_leave_one_out_pct(pts))
    if (!std::isfinite(pct)) fuzz::fail("non-finite leave-one-out error");
  return 0;
}
