// Bandwidth tables (calibrate/bandwidth_fit.h): BabelStream triad -> memory-bound efficiency,
// nvbandwidth host copies -> the host link rate, on the copied Azure table.
#include "calibrate/bandwidth_fit.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace shardsim::calibrate {
namespace {

const std::string kFile =
    std::string(SHARDSIM_MEASUREMENTS_DIR) + "/gemm/azure_hbm_stream_bandwidth.csv";

std::string read(const std::string& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<BandwidthMeasurement> rows_of(const std::string& device) {
  auto r = parse_bandwidth_csv(read(kFile), kFile, device);
  if (auto* e = std::get_if<std::string>(&r)) ADD_FAILURE() << *e;
  return std::get<std::vector<BandwidthMeasurement>>(r);
}

TEST(bandwidth_fit, A100TriadAndHostCopy) {
  const auto rows = rows_of("A100-SXM4-80GB");
  ASSERT_EQ(rows.size(), 8u);  // 5 BabelStream kernels + 3 nvbandwidth copies
  // The A100 80GB datasheet HBM bandwidth is 2.039 TB/s (scenarios/gpus/a100-sxm-80gb-datasheet).
  const auto f = std::get<BandwidthFit>(fit_bandwidth(rows, 2.039e12, kFile));
  // triad 1.70 TB/s (line 6) / 2.039 TB/s = 0.8337
  EXPECT_NEAR(f.memory_bound_efficiency, 1.70 / 2.039, 1e-12);
  EXPECT_EQ(f.triad_line, 6);
  // best host copy: host_to_device 26.28 GB/s (device_to_host is 6.27); / 0.8 = 32.85 GB/s
  EXPECT_EQ(f.copy_test, "nvbandwidth_host_to_device");
  EXPECT_NEAR(f.pcie_bytes_per_second, 26.28e9 / 0.8, 1);
}

TEST(bandwidth_fit, SiblingPartGetsTheEfficiencyNotTheRate) {
  // The 40GB part (1.555 TB/s) has no table. Dividing the 80GB part's triad by it would give
  // 1.70 / 1.555 = 1.09 > 1: refused, naming the line. fit --measured-on divides by the
  // measured part's 2.039 TB/s instead and applies 0.8337 to the 40GB part's 1.555 TB/s.
  const auto r = fit_bandwidth(rows_of("A100-SXM4-80GB"), 1.555e12, kFile);
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_NE(std::get<std::string>(r).find(kFile + ":6: triad"), std::string::npos);
}

TEST(bandwidth_fit, H100UsesTheFasterCopyDirection) {
  // H100: host_to_device 51, device_to_host 52 GB/s -> 52 / 0.8 = 65 GB/s; triad 2.97 / 3.35.
  const auto f = std::get<BandwidthFit>(fit_bandwidth(rows_of("H100"), 3.35e12, kFile));
  EXPECT_EQ(f.copy_test, "nvbandwidth_device_to_host");
  EXPECT_NEAR(f.pcie_bytes_per_second, 65e9, 1);
  EXPECT_NEAR(f.memory_bound_efficiency, 2.97 / 3.35, 1e-12);
}

TEST(bandwidth_fit, MalformedRowsNameFileAndLine) {
  const std::string head = "gpu,test,value,unit\n";
  const auto err = [](const std::string& text) {
    auto r = parse_bandwidth_csv(text, "b.csv", "");
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "(no error)";
  };
  EXPECT_NE(err(head + "G,babelstream_triad,1.7,PB/s\n").find("b.csv:2: unknown unit \"PB/s\""),
            std::string::npos);
  EXPECT_NE(err(head + "G,stream_triad,1.7,TB/s\n").find("b.csv:2: unknown test \"stream_triad\""),
            std::string::npos);
  EXPECT_NE(err(head + "G,babelstream_triad,x,TB/s\n").find("b.csv:2: value \"x\""),
            std::string::npos);
  EXPECT_NE(err("gpu,test,value\nG,babelstream_triad,1.7\n").find("b.csv:1: needs columns"),
            std::string::npos);
  EXPECT_NE(err(head + "G,babelstream_triad,1.7,TB/s\nG,babelstream_triad,1.8,TB/s\n")
                .find("b.csv:3: a second babelstream_triad row"),
            std::string::npos);
  // A fifth field under a four-column header (found by review, 2026-11-29: read as if absent).
  EXPECT_NE(err(head + "G,babelstream_triad,1.7,TB/s,extra\n")
                .find("b.csv:2: 5 fields, but the header on line 1 names 4"),
            std::string::npos);
  // The shared table holds three devices: one must be chosen.
  EXPECT_NE(err(read(kFile)).find("rows of 3 devices"), std::string::npos);
}

}  // namespace
}  // namespace shardsim::calibrate
