// The fitted network presets (scenarios/measurements/rebuild-profiles.sh) against measurements
// they were not fitted on: another system of the same class, or a repeat run.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "calibrate/collective_tables.h"
#include "calibrate/linear_fit.h"
#include "simulator/cost/collective.h"
#include "simulator/scenario/presets.h"
#include "tests/calibrate/nccl_test_data.h"

namespace shardsim::calibrate {
namespace {

NetworkConfig preset_network(const std::string& name) {
  NetworkConfig n;
  Diagnostics d;
  read_network_config(*find_preset(PresetKind::kCluster, name), "", d, n);
  EXPECT_TRUE(d.empty()) << d.format();
  return n;
}

struct Errors {
  double median = 0, max = 0;
};

// |predicted - measured| / measured in percent over the rows of m, predicted by `net`.
Errors errors(const MeasuredCollective& m, const NetworkConfig& net) {
  std::vector<double> e;
  const auto op = *collective_from_name(m.op);
  for (std::size_t i = 0; i < m.bytes.size(); ++i) {
    const auto c = collective_cost(op, m.bytes[i], {m.ranks, m.ranks_per_node}, net);
    EXPECT_EQ(c.source, CostSource::kFitted) << m.file;
    e.push_back(std::abs(c.seconds - m.seconds[i]) / m.seconds[i] * 100);
  }
  return {median(e), *std::ranges::max_element(e)};
}

TEST(fitted_networks, DgxH100PredictsAnotherH100NodesAllReduce) {
  // dgx-h100's (all_reduce, 8, 8) entry is fitted on the AWS p5 log (NCCL ~2.23); the
  // xxrjun/nccl-tests-cluster node (NCCL 2.29.2, 32 MB-16 GB) was never fitted. Measured here:
  // median 3.9%, max 8.1%.
  const auto m = test::load_log(test::kNcclDir / "h100-sxm-nvlink-1node_all_reduce_8.log");
  ASSERT_EQ(m.size(), 1u);
  const Errors e = errors(m[0], preset_network("dgx-h100"));
  EXPECT_LE(e.median, 5.0);
  EXPECT_LE(e.max, 10.0);
}

TEST(fitted_networks, AwsP5PredictsTheRepeatRun) {
  // aws-p5's (all_reduce, 16, 8) entry is fitted on aws-p5-h100-efa-2node (NCCL 2.20.3); the
  // debug-info run of the same instance type (NCCL 2.22.3, aws-ofi-nccl 1.9.2) is held out.
  // Measured here: median 2.8%, max 20.4% (one disturbed mid-size row).
  const auto m =
      test::load_log(test::kNcclDir / "aws-p5-h100-efa-2node-debuginfo_all_reduce_16.log");
  ASSERT_EQ(m.size(), 1u);
  const Errors e = errors(m[0], preset_network("aws-p5"));
  EXPECT_LE(e.median, 5.0);
  EXPECT_LE(e.max, 25.0);
}

TEST(fitted_networks, DgxH100PredictsAzureH100AboveOneMiB) {
  // Azure ND H100 v5 busbw summary (in-place busbw only, one process driving 8 GPUs: -g 8), rows
  // of 1 MiB and more. Below 1 MiB Azure's single-process setup adds latency (25.6 vs 12.9 us at
  // the smallest size, see dgx-h100-datasheet's sources), so only the bandwidth side is compared.
  // Measured here: median 1.3%, max 34.9% (the 2 MiB row, at the protocol change).
  const std::string file =
      (std::filesystem::path(SHARDSIM_MEASUREMENTS_DIR) /
       "nccl-tests/azure-nd-a100v4-h100v5-h200v5-1node_all_reduce_8_busbw-summary.csv")
          .string();
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = parse_collective_table(text.str(), file, {0, 8}, "H100");
  ASSERT_TRUE(std::holds_alternative<std::vector<MeasuredCollective>>(parsed));
  MeasuredCollective all = std::get<std::vector<MeasuredCollective>>(parsed).front(), big = all;
  big.bytes.clear(), big.seconds.clear(), big.lines.clear();
  for (std::size_t i = 0; i < all.bytes.size(); ++i)
    if (all.bytes[i] >= 1048576) {
      big.bytes.push_back(all.bytes[i]);
      big.seconds.push_back(all.seconds[i]);
      big.lines.push_back(all.lines[i]);
    }
  ASSERT_EQ(big.bytes.size(), 14u);  // 1M ... 8G
  const Errors e = errors(big, preset_network("dgx-h100"));
  EXPECT_LE(e.median, 5.0);
  EXPECT_LE(e.max, 40.0);
}

}  // namespace
}  // namespace shardsim::calibrate
