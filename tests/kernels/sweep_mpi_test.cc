// End-to-end tests of shardsim-calibrate-sweep: the cpu --quick sweep under `mpirun -np 2` must
// finish in under a minute, write a document with every key the schema requires, and verify every
// item; bad options exit 2; --backend cuda exits 0 on a GPU machine or 3 ("no CUDA device").
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include "tests/common/process_util.h"

namespace {

using shardsim::test_util::check_required;
using shardsim::test_util::run;
using shardsim::test_util::slurp;

namespace fs = std::filesystem;
using nlohmann::json;

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("shardsim_sweep_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

}  // namespace

TEST(CalibrationSweep, CpuQuickUnderMpirunTwoRanks) {
  const fs::path out = scratch("samples.json");
  const std::string cmd = shardsim::test_util::mpirun(SHARDSIM_MPIEXEC, 2) + SHARDSIM_SWEEP_BINARY +
                          " --backend cpu --quick -o " + out.string() + " 2> " + out.string() +
                          ".log";
  const auto start = std::chrono::steady_clock::now();
  const int rc = run(cmd);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("cpu --quick sweep, 2 ranks: %.1f s wall\n", wall);
  ASSERT_EQ(rc, 0) << slurp(out.string() + ".log");
  EXPECT_LT(wall, 60.0);                                // the bound for a 2-core CI machine
  EXPECT_FALSE(fs::exists(out.string() + ".partial"));  // removed after a complete run

  const json doc = json::parse(slurp(out));
  const json schema = json::parse(slurp(SHARDSIM_SCHEMA_DIR "/calibration-samples.schema.json"));
  std::vector<std::string> missing;
  check_required(schema, doc, "", missing);
  EXPECT_TRUE(missing.empty()) << "missing: " << json(missing).dump();

  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["complete"], true);
  EXPECT_EQ(doc["context"]["mpi"]["world_size"], 2);
  EXPECT_NE(doc["context"]["build_type"], "Debug");
  std::set<std::string> kinds;
  int collectives = 0;
  for (const json& item : doc["items"]) {
    kinds.insert(item["kind"].get<std::string>());
    EXPECT_TRUE(item["verified"].get<bool>()) << item["name"] << ": " << item["verification"];
    EXPECT_GT(item["median_s"].get<double>(), 0.0) << item["name"];
    EXPECT_GE(item["samples_s"].size(), 3u) << item["name"];  // quick: at least 3 repetitions
    if (item["kind"] == "collective") {
      ++collectives;
      EXPECT_EQ(item["params"]["ranks"], 2);
      EXPECT_EQ(item["params"]["ranks_per_node"], 2);  // both ranks on this machine
    }
  }
  // Five kinds; collectives: 5 ops x 4 sizes (1 KiB, 16 KiB, 256 KiB, 4 MiB) x 1 group size (2).
  EXPECT_EQ(kinds, (std::set<std::string>{"collective", "copy", "gemm", "launch", "memory_bound"}));
  EXPECT_EQ(collectives, 20);
}

TEST(CalibrationSweep, BadOptionsExitTwo) {
  EXPECT_EQ(run(SHARDSIM_SWEEP_BINARY " --backend tpu 2>/dev/null"), 2);
  EXPECT_EQ(run(SHARDSIM_SWEEP_BINARY " --backend cpu --sync-timeout -1 2>/dev/null"), 2);
  EXPECT_EQ(run(SHARDSIM_SWEEP_BINARY " --backend cpu --filter no-such-item 2>/dev/null"), 2);
}

TEST(CalibrationSweep, CudaWithoutDeviceExitsThree) {
  const fs::path log = scratch("cuda.log");
  const int rc =
      run(SHARDSIM_SWEEP_BINARY " --backend cuda --quick --filter launch/ 2> " + log.string());
  const std::string err = slurp(log);
  if (rc == 0) GTEST_SKIP() << "a CUDA device is present; the launch item ran";
  EXPECT_EQ(rc, 3) << err;
  EXPECT_NE(err.find("no CUDA device"), std::string::npos) << err;
}
