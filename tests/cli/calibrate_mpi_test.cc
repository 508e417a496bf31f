// The loop on the CPU backend: `mpirun -np 2 shardsim calibrate --backend cpu --quick
// -o p.json` in under a minute, then p.json as cluster.gpu of a simulation.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "tests/common/process_util.h"

namespace {

using shardsim::test_util::run;
using shardsim::test_util::slurp;

namespace fs = std::filesystem;

TEST(calibrate_mpi, CpuQuickTwoRanksThenSimulate) {
  const fs::path dir =
      fs::temp_directory_path() / ("shardsim_calibrate_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path profile = dir / "p.json", log = dir / "calibrate.log";
  const std::string cmd = shardsim::test_util::mpirun(SHARDSIM_MPIEXEC, 2) + SHARDSIM_BINARY +
                          " calibrate --backend cpu --quick -o " + profile.string() + " 2> " +
                          log.string();
  const auto start = std::chrono::steady_clock::now();
  const int rc = run(cmd);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("calibrate cpu --quick, 2 ranks: %.1f s\n", wall);
  ASSERT_EQ(rc, 0) << slurp(log);
  // The bound for a 2-core CI machine; a target, so only under SHARDSIM_STRICT_TIMING=1
  // (tests/common/process_util.h) and in tests/bench/calibrate_bench.cc.
  if (shardsim::test_util::strict_timing()) {
    EXPECT_LT(wall, 60.0);
  }
  EXPECT_TRUE(fs::exists(dir / "p.samples.json"));
  const auto p = nlohmann::json::parse(slurp(profile));
  EXPECT_TRUE(p["provenance"]["fitted"].get<bool>());
  EXPECT_EQ(p["compute"]["kind"], "measured");
  // Two ranks measure 2-rank collectives: at least one fitted segment per measured op.
  EXPECT_FALSE(p["network"]["fitted_collectives"].empty());
  const fs::path report = dir / "sim.json";
  const int sim = run(std::string(SHARDSIM_BINARY) +
                      " simulate llama3-8b-8xh100 --set cluster.gpu=" + profile.string() +
                      " --json -o " + report.string() + " 2>> " + log.string());
  ASSERT_EQ(sim, 0) << slurp(log);
  const auto r = nlohmann::json::parse(slurp(report));
  EXPECT_GT(r["time"]["step_seconds"].get<double>(), 0);
  // The same samples twice measure every 2-rank collective twice: refused naming both files
  // (found by review, 2026-11-27: ten lines about duplicate profile entries).
  const fs::path both_log = dir / "both.log";
  const std::string samples = (dir / "p.samples.json").string();
  EXPECT_NE(run(std::string(SHARDSIM_BINARY) + " fit --samples " + samples + " --samples " +
                samples + " -o " + (dir / "both.json").string() + " 2> " + both_log.string()),
            0);
  EXPECT_NE(slurp(both_log).find("both measure"), std::string::npos) << slurp(both_log);
  // A base whose network line rate the measurements exceed (2 GB/s per GPU of shared memory,
  // which the first run measured at several GB/s) is bad input, as `fit --samples --base` says:
  // exit 2 naming --base, the samples kept, no profile (found by review, 2026-11-29: "internal
  // failure", exit 3).
  auto low = p;
  low["name"] = "slow-base";
  low["network"]["intra_node_GBps"] = 1;
  low["network"]["intra_node_line_GBps"] = 2;
  const fs::path base = dir / "low.json", refit = dir / "c.json", base_log = dir / "base.log";
  std::ofstream(base) << low.dump();
  EXPECT_EQ(run(shardsim::test_util::mpirun(SHARDSIM_MPIEXEC, 2) + SHARDSIM_BINARY +
                " calibrate --backend cpu --quick --base " + base.string() + " -o " +
                refit.string() + " 2> " + base_log.string()),
            2)
      << slurp(base_log);
  EXPECT_NE(slurp(base_log).find("error: --base: "), std::string::npos) << slurp(base_log);
  EXPECT_NE(slurp(base_log).find("above the base network's line rate of 2 GB/s per GPU"),
            std::string::npos)
      << slurp(base_log);
  EXPECT_EQ(slurp(base_log).find("internal failure"), std::string::npos) << slurp(base_log);
  EXPECT_FALSE(fs::exists(refit));
  EXPECT_TRUE(fs::exists(dir / "c.samples.json"));
  fs::remove_all(dir);
}

// Found by review (2026-11-27): a one-rank calibrate measures no collective and wrote a profile
// without a network silently; validating it on 2 ranks predicted the all-reduces as inf, wrote
// null into the JSON report and exited 0. calibrate now warns, and validate exits 2 naming the
// profile before measuring anything.
TEST(calibrate_mpi, OneRankProfileHasNoNetworkAndValidateSaysSo) {
  const fs::path dir =
      fs::temp_directory_path() / ("shardsim_one_rank_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path profile = dir / "one.json", log = dir / "one.log", vlog = dir / "validate.log";
  ASSERT_EQ(run(std::string(SHARDSIM_BINARY) + " calibrate --backend cpu --quick -o " +
                profile.string() + " 2> " + log.string()),
            0)
      << slurp(log);
  EXPECT_NE(slurp(log).find("no collective was measured"), std::string::npos) << slurp(log);
  const fs::path report = dir / "v.json";
  const int rc = run(shardsim::test_util::mpirun(SHARDSIM_MPIEXEC, 2) + SHARDSIM_BINARY +
                     " validate --backend cpu --quick --profile " + profile.string() +
                     " --json -o " + report.string() + " 2> " + vlog.string());
  EXPECT_NE(rc, 0);
  EXPECT_NE(slurp(vlog).find("has no network section"), std::string::npos) << slurp(vlog);
  EXPECT_FALSE(fs::exists(report));
  fs::remove_all(dir);
}

}  // namespace
