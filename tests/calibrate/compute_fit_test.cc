// fit_device on a hand-made samples document whose answer is known by construction.
#include "calibrate/compute_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace shardsim::calibrate {
namespace {

nlohmann::json memory_item(const std::string& op, double bytes, double bytes_per_second) {
  return {{"kind", "memory_bound"},
          {"params", {{"op", op}, {"rows", 1}, {"cols", 1}}},
          {"work", {{"bytes", bytes}}},
          {"derived", {{"bytes_per_second", bytes_per_second}}}};
}

TEST(gemm_points, RowsOfOneFoldedShapeBecomeOnePointWithTheirMeanEfficiency) {
  // b = 2, m = 1024 folds into m = 2048 (parse_gemm_csv multiplies m by the batch), the same
  // shape as the b = 1 row: one point, efficiency (400 + 600) / 2 TFLOP/s over the 1000 TFLOP/s
  // peak = 0.5. The 4096 row stays its own point (800 / 1000 = 0.8), after the first.
  const auto rows = parse_gemm_csv(
      "m,n,k,batch,dtype,tflops\n2048,4096,1024,1,bf16,400\n4096,4096,1024,1,bf16,800\n"
      "1024,4096,1024,2,bf16,600\n",
      "t.csv", "");
  ASSERT_TRUE(std::holds_alternative<std::vector<GemmMeasurement>>(rows));
  PeakFlops peak;
  peak.bf16 = 1e15;
  const auto points = gemm_points(std::get<std::vector<GemmMeasurement>>(rows), peak, "t.csv");
  ASSERT_TRUE(std::holds_alternative<std::vector<GemmPoint>>(points));
  const auto& p = std::get<std::vector<GemmPoint>>(points);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].m, 2048);
  EXPECT_NEAR(p[0].efficiency, 0.5, 1e-15);
  EXPECT_EQ(p[1].m, 4096);
  EXPECT_NEAR(p[1].efficiency, 0.8, 1e-15);
}

// Found by review (2026-11-28): "0x10" was read as 16 TFLOP/s (strtod's hex), a header naming m
// twice used the first, and fields past the header's were ignored. Each is now an error naming
// the file and line.
TEST(parse_gemm_csv, HexNumbersDuplicateColumnsAndExtraFieldsAreErrors) {
  const auto error_of = [](const char* text, const char* device = "") {
    const auto r = parse_gemm_csv(text, "g.csv", device);
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : std::string();
  };
  EXPECT_EQ(error_of("m,n,k,dtype,tflops\n4096,4096,4096,bf16,0x10\n"),
            "g.csv:2: m, n, k, batch must be whole numbers >= 1 and tflops > 0");
  EXPECT_NE(error_of("m,n,k,dtype,tflops\n0x1000,4096,4096,bf16,700\n"), "");
  EXPECT_EQ(error_of("m,n,k,dtype,tflops,m\n4096,4096,4096,bf16,700,1\n"),
            "g.csv:1: column \"m\" appears twice (fields 1 and 6)");
  EXPECT_EQ(error_of("m,n,k,dtype,tflops\n4096,4096,4096,bf16,700,1,x\n"),
            "g.csv:2: 7 fields, the header has 5");
  EXPECT_EQ(error_of("m,best_m,n,k,dtype,tflops\n4096,2048,4096,4096,bf16,700\n"),
            "g.csv:1: columns \"m\" and \"best_m\" both name one column");
  // A table without a gpu column is one device's: --device, which also picks the rows of the
  // other tables of the same fit, leaves it whole.
  EXPECT_EQ(error_of("m,n,k,dtype,tflops\n4096,4096,4096,bf16,700\n", "H100"), "");
  // 1e300 TFLOP/s overflowed to inf FLOP/s; magnitudes past 1e30 are not numbers here
  EXPECT_EQ(error_of("m,n,k,dtype,tflops\n4096,4096,4096,bf16,1e300\n"),
            "g.csv:2: m, n, k, batch must be whole numbers >= 1 and tflops > 0");
  // still accepted: a trailing comma (an empty field past the header) and exponent notation
  EXPECT_EQ(error_of("m,n,k,dtype,tflops\n4096,4096,4096,bf16,7e2,\n"), "");
  // A dimension past a profile GEMM point's 1e9 is named at its line, not as the written
  // profile's /compute/gemm_points/N/m (found by review, 2026-11-28).
  EXPECT_EQ(error_of("m,n,k,dtype,tflops\n2000000000,4096,4096,bf16,700\n"),
            "g.csv:2: m x batch, n and k must be at most 1e+09 (a GEMM point's limit), got 2e+09 "
            "x 4096 x 4096");
  // m x batch is what the point stores: 100000 x 20000 = 2e9 rows.
  EXPECT_EQ(error_of("m,n,k,dtype,tflops,batch\n100000,4096,4096,bf16,700,20000\n"),
            "g.csv:2: m x batch, n and k must be at most 1e+09 (a GEMM point's limit), got 2e+09 "
            "x 4096 x 4096");
}

// Found by review (2026-11-28): two rows of one shape 10x apart were averaged into a point that
// matches neither. Within 2x they are repeats and are averaged (the folding test above); beyond,
// an error names both lines. Line 2: 800 TFLOP/s; line 3: 80 TFLOP/s for the same 4096^3 shape.
TEST(gemm_points, RowsOfOneShapeMoreThanTwiceApartAreAnError) {
  const auto rows = parse_gemm_csv(
      "m,n,k,dtype,tflops\n4096,4096,4096,bf16,800\n4096,4096,4096,bf16,80\n", "t.csv", "");
  ASSERT_TRUE(std::holds_alternative<std::vector<GemmMeasurement>>(rows));
  PeakFlops peak;
  peak.bf16 = 1e15;
  const auto points = gemm_points(std::get<std::vector<GemmMeasurement>>(rows), peak, "t.csv");
  ASSERT_TRUE(std::holds_alternative<std::string>(points));
  EXPECT_EQ(std::get<std::string>(points),
            "t.csv:3: bf16 4096x4096x4096 runs at 80.0 TFLOP/s on line 3 and 800.0 on line 2, "
            "more than 2x apart for one shape");
  // The span, not each row against the first: 190, 100, 380 span 3.8x (lines 4 and 3).
  const auto order = parse_gemm_csv(
      "m,n,k,dtype,tflops\n64,64,64,bf16,190\n64,64,64,bf16,100\n64,64,64,bf16,380\n", "u.csv", "");
  const auto spanned = gemm_points(std::get<std::vector<GemmMeasurement>>(order), peak, "u.csv");
  ASSERT_TRUE(std::holds_alternative<std::string>(spanned));
  EXPECT_EQ(std::get<std::string>(spanned),
            "u.csv:4: bf16 64x64x64 runs at 100.0 TFLOP/s on line 3 and 380.0 on line 4, more "
            "than 2x apart for one shape");
  // A calibration sweep (spread 0: plain and transposed items of one shape) averages them.
  EXPECT_TRUE(std::holds_alternative<std::vector<GemmPoint>>(
      gemm_points(std::get<std::vector<GemmMeasurement>>(order), peak, "u.csv", 0)));
}

TEST(fit_device, OneMemoryBoundCurvePerKernelClass) {
  // layernorm at 1 MB: 10 and 12 GB/s (two ranks); softmax at 1 MB: 2 GB/s; adam at 1e8 B: 8 GB/s.
  nlohmann::json samples = {
      {"items",
       {memory_item("layernorm", 1e6, 10e9), memory_item("layernorm", 1e6, 12e9),
        memory_item("softmax", 1e6, 2e9), memory_item("adam", 1e8, 8e9)}}};
  const DeviceFits f = fit_device(samples);
  // B = the best rate, 12 GB/s.
  EXPECT_DOUBLE_EQ(f.hbm_bytes_per_second, 12e9);
  // One point per (kernel, size), kernels by name: adam 8/12, layernorm median(10, 12) / 12 =
  // 11/12, softmax 2/12.
  ASSERT_EQ(f.memory_bound_points.size(), 3u);
  EXPECT_EQ(f.memory_bound_points[0].kernel, "adam");
  EXPECT_DOUBLE_EQ(f.memory_bound_points[0].efficiency, 8.0 / 12.0);
  EXPECT_EQ(f.memory_bound_points[1].kernel, "layernorm");
  EXPECT_DOUBLE_EQ(f.memory_bound_points[1].efficiency, 11.0 / 12.0);
  EXPECT_EQ(f.memory_bound_points[2].kernel, "softmax");
  EXPECT_DOUBLE_EQ(f.memory_bound_points[2].efficiency, 2.0 / 12.0);
  // Kernels without a class: the median of the three points, 8/12.
  EXPECT_DOUBLE_EQ(f.memory_bound_efficiency, 8.0 / 12.0);
  // Residual: layernorm's rates against their median 11: (10/11 - 1)^2 + (12/11 - 1)^2 =
  // 2/121 over 4 rates -> sqrt(2/121/4) = sqrt(1/242).
  EXPECT_NEAR(f.memory_bound_residual, std::sqrt(1.0 / 242.0), 1e-12);
}

// The host copy rate is the largest copy's: a 4 KiB memcpy on the CPU backend runs from cache
// (found by review, 2026-11-27: 124.6 GB/s against 13 GB/s at 16 MiB, and offload was priced
// from it). Copies of 4 KiB at 124.6 GB/s and 16 MiB at 13 and 12 GB/s (two ranks) -> 13 GB/s.
TEST(fit_device, HostCopyRateIsTheLargestCopys) {
  auto copy = [](double bytes, double rate) {
    return nlohmann::json{{"kind", "copy"},
                          {"params", {{"direction", "host_to_host"}}},
                          {"work", {{"bytes", bytes}}},
                          {"derived", {{"bytes_per_second", rate}}}};
  };
  const nlohmann::json samples = {
      {"items", {copy(4096, 124.6e9), copy(16777216, 13e9), copy(16777216, 12e9)}}};
  EXPECT_DOUBLE_EQ(fit_device(samples).copy_bytes_per_second, 13e9);
}

}  // namespace
}  // namespace shardsim::calibrate
