// `shardsim collective` end to end (DESIGN.md "Command line"): the report keys, the units in the
// text, agreement with the library on a shipped preset, and exit code 2 with the flag named for
// bad input. Runs the built binary through the shell (the arguments here need no quoting).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "simulator/cost/collective.h"

namespace shardsim {
namespace {

struct CliRun {
  int exit_code = -1;
  std::string output;  // stdout, plus stderr when `merge_stderr`
};

CliRun shardsim_collective(const std::string& args, bool merge_stderr = true) {
  const std::string cmd = std::string(SHARDSIM_BINARY) + " collective " + args +
                          (merge_stderr ? " 2>&1" : " 2>/dev/null");
  CliRun r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

NetworkConfig dgx_h100() {
  std::ifstream in(std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/clusters/dgx-h100.json");
  std::stringstream s;
  s << in.rdbuf();
  NetworkConfig n;
  Diagnostics d;
  read_network_config(nlohmann::json::parse(s.str()), "", d, n);
  return n;
}

TEST(collective_cli, TextStatesUnits) {
  const CliRun r = shardsim_collective("--gpu h100-sxm --op all_reduce --bytes 1e9 --ranks 16");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, " s (")) << r.output;
  EXPECT_TRUE(contains(r.output, "µs")) << r.output;
  EXPECT_TRUE(contains(r.output, "GB/s = 1e9 bytes/s")) << r.output;
  EXPECT_TRUE(contains(r.output, "2 node(s), 8 per node")) << r.output;
}

// Found by review (2026-11-28): inside a gap between fitted segments the printed segment's line
// did not give the printed time. The H100 NVLink send/recv log measures 820.17 us at
// 67,108,864 B (the end of one segment) and 825.74 us at 134,217,728 B (the start of the next),
// which the two segments price at 820.2 and 825.7 us; 8e7 B lies between, and the text says its
// time is kept between those two.
TEST(collective_cli, AGapSizeSaysItsTimeIsKeptBetweenTheNeighbours) {
  const CliRun r = shardsim_collective("--gpu h100-sxm --op sendrecv --bytes 8e7 --ranks 8");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "in the gap 6.71089e+07-1.34218e+08 bytes")) << r.output;
  EXPECT_TRUE(contains(r.output, "(820.2 and 825.7 µs)")) << r.output;
  EXPECT_TRUE(contains(r.output, "time: 0.000826 s")) << r.output;
}

TEST(collective_cli, JsonMatchesTheLibraryOnTheGpuDefaultNetwork) {
  // h100-sxm's node network is dgx-h100 with 8 GPUs per node: 16 ranks = 2 nodes x 8.
  const CliRun r =
      shardsim_collective("--gpu h100-sxm --op all_reduce --bytes 1e9 --ranks 16 --json", false);
  ASSERT_EQ(r.exit_code, 0);
  const auto j = nlohmann::json::parse(r.output);
  const auto expected = collective_cost(CollectiveOp::kAllReduce, 1e9, {16, 8}, dgx_h100());
  EXPECT_TRUE(j.contains("schema_version"));
  EXPECT_TRUE(j.contains("tool_version"));
  EXPECT_DOUBLE_EQ(j["collective"]["seconds"].get<double>(), expected.seconds);
  EXPECT_EQ(j["collective"]["algorithm"], algorithm_name(expected.algorithm));
  EXPECT_DOUBLE_EQ(j["collective"]["busbw_bytes_per_second"].get<double>(),
                   expected.bus_bytes_per_second);
  EXPECT_DOUBLE_EQ(j["collective"]["algbw_bytes_per_second"].get<double>(),
                   expected.alg_bytes_per_second);
  EXPECT_EQ(j["input"]["network"]["name"], "dgx-h100");
}

TEST(collective_cli, AliasesStrideNetworkAndAlgorithm) {
  // all_to_all is alltoall; --stride 8 puts one rank per node; --algorithm picks one.
  CliRun r = shardsim_collective(
      "--gpu a100-sxm-80gb --network dgx-a100 --op all_to_all --bytes 1e8 --ranks 4 --stride 8 "
      "--json",
      false);
  ASSERT_EQ(r.exit_code, 0);
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["collective"]["op"], "alltoall");
  EXPECT_EQ(j["collective"]["nodes"], 4);
  r = shardsim_collective(
      "--gpu h100-sxm --op all_reduce --bytes 1e6 --ranks 64 --algorithm tree --json", false);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(r.output)["collective"]["algorithm"], "tree");
}

TEST(collective_cli, BadInputNamesTheFlagAndExitsWith2) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--gpu h100-sxm --op all_reduce --bytes 0 --ranks 8", "--bytes"},
      {"--gpu h100-sxm --op all_reduce --bytes -1 --ranks 8", "--bytes"},
      {"--gpu h100-sxm --op all_reduce --bytes 1e6 --ranks 0", "--ranks"},
      {"--gpu h100-sxm --op all_reduce --bytes 1e6 --ranks 8 --gpus-per-node 0", "--gpus-per-node"},
      {"--gpu h100-sxm --op allreduce --bytes 1e6 --ranks 8", "did you mean \"all_reduce\""},
      {"--gpu h100-sxm --op all_gather --bytes 1e6 --ranks 8 --algorithm tree", "--algorithm"},
      {"--gpu h100-sxn --op all_reduce --bytes 1e6 --ranks 8", "--gpu"},
      {"--gpu h100-sxm --network dgx-h1OO --op all_reduce --bytes 1e6 --ranks 8", "--network"}};
  for (const auto& [args, fragment] : cases) {
    const CliRun r = shardsim_collective(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(contains(r.output, fragment)) << args << "\n" << r.output;
  }
}

// Member i of a group sits on node i * stride / gpus_per_node; `collective` prices the group by
// place_group, as every collective of a plan is, and refuses what that rule would not price
// exactly (exit 2 naming the flag):
// - a stride below the node that does not divide it: at stride 3 on nodes of 8, {0, 3, 6} sit on
//   one node and {2, 5, 8} on two, and place_group counts 8 / 3 = 2 per node for both;
// - a group with different counts per node: 12 ranks at stride 1 on nodes of 8 fill 1 node with
//   8 and put 4 on another; 6 on nodes of 4 fill 1 with 4 and put 2 on another; 6 at stride 2 on
//   nodes of 8 (4 per node) fill 1 with 4 and put 2 on another.
// Accepted and exact: 3 ranks at stride 2 (members 0, 2, 4: one node of 3), 4 at stride 12 (0, 12,
// 24, 36: nodes 0, 1, 3, 4, four nodes of 1), 16 at stride 1 (two nodes of 8), 8 at stride 2 (two
// nodes of 4). Until 2026-11-29 the refused ones were priced: 12 ranks as 2 nodes of 8.
TEST(collective_cli, AGroupMustPutTheSameNumberOfRanksOnEachNode) {
  const std::vector<std::tuple<std::string, std::string, std::string>> refused = {
      {"--ranks 3 --stride 3", "--stride",
       "3 on nodes of 8 GPUs (the profile's node) neither divides the node nor spans it"},
      {"--ranks 12", "--ranks",
       "12 ranks at stride 1 on nodes of 8 GPUs (the profile's node) fill 1 node(s) with 8 ranks "
       "and put 4 on another"},
      {"--ranks 6 --gpus-per-node 4", "--ranks",
       "6 ranks at stride 1 on nodes of 4 GPUs fill 1 node(s) with 4 ranks and put 2 on another"},
      {"--ranks 6 --stride 2", "--ranks", "fill 1 node(s) with 4 ranks and put 2 on another"}};
  for (const auto& [args, flag, fragment] : refused) {
    const CliRun r = shardsim_collective("--gpu h100-sxm --op all_reduce --bytes 1e6 " + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(contains(r.output, "error: " + flag + ": ")) << args << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, fragment)) << args << "\n" << r.output;
  }
  const std::vector<std::tuple<std::string, int, int>> even = {{"--ranks 3 --stride 2", 1, 3},
                                                               {"--ranks 4 --stride 12", 4, 1},
                                                               {"--ranks 16", 2, 8},
                                                               {"--ranks 8 --stride 2", 2, 4}};
  for (const auto& [args, nodes, per_node] : even) {
    const CliRun r =
        shardsim_collective("--gpu h100-sxm --op all_reduce --bytes 1e6 --json " + args, false);
    ASSERT_EQ(r.exit_code, 0) << args;
    const auto j = nlohmann::json::parse(r.output)["collective"];
    EXPECT_EQ(j["nodes"], nodes) << args;
    EXPECT_EQ(j["ranks_per_node"], per_node) << args;
  }
}

// A profile file whose own network section carries a fitted all_reduce for 8 ranks on one node:
// with no --network, that section is the network, and the report says the time is fitted:
// 1e-5 + 1.75 x 1e9 / 4e11 = 4.385e-3 s.
TEST(collective_cli, ProfileNetworkWithFittedEntry) {
  // The datasheet profile: its own provenance says not fitted, only the network is.
  std::ifstream in(std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/gpus/h100-sxm-datasheet.json");
  nlohmann::json profile = nlohmann::json::parse(in);
  nlohmann::json net = to_json(dgx_h100());
  net["name"] = "fitted-test";
  net["fitted_collectives"] = {{{"op", "all_reduce"},
                                {"ranks", 8},
                                {"ranks_per_node", 8},
                                {"alpha_s", 1e-5},
                                {"busbw_bytes_per_second", 4e11}}};
  profile["network"] = net;
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("shardsim_fitted_profile_" + std::to_string(::getpid()) + ".json"))
                               .string();
  std::ofstream(path) << profile.dump(2);
  const CliRun r =
      shardsim_collective("--gpu " + path + " --op all_reduce --bytes 1e9 --ranks 8 --json", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["collective"]["source"], "fitted");
  EXPECT_NEAR(j["collective"]["seconds"].get<double>(), 1e-5 + 1.75 * 1e9 / 4e11, 1e-15);
  EXPECT_EQ(j["input"]["network"]["name"], "fitted-test");
  EXPECT_EQ(j["input"]["profile"]["fitted"], false);
  // 16 ranks has no fitted entry: the formula, and the text says which.
  const CliRun text =
      shardsim_collective("--gpu " + path + " --op all_reduce --bytes 1e9 --ranks 8");
  EXPECT_TRUE(contains(text.output, "source: fitted")) << text.output;
  const CliRun other = shardsim_collective(
      "--gpu " + path + " --op all_reduce --bytes 1e9 --ranks 16 --json", false);
  EXPECT_EQ(nlohmann::json::parse(other.output)["collective"]["source"], "formula");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace shardsim
