// A rank lost mid-sweep, through the test hook SHARDSIM_TEST_DIE_AFTER_ITEMS (rank_signals.h):
// `mpirun -np 2 shardsim calibrate --backend cpu --quick` with rank 1 dying before its 4th item.
//  - SIGKILL (cannot be handled): Open MPI's mpirun ends the job and exits 137 (128 + 9, the lost
//    rank's signal); rank 0, sent SIGTERM by mpirun, names the lost rank and the call it was in,
//    and the .partial file keeps the 3 items measured before.
//  - SIGSEGV (a crash): rank 1's handler writes its .rank1.error and exits 3, so mpirun exits 3.
//  - SIGKILL under `shardsim calibrate --launcher "mpirun ..."`: mpirun exits 137, shardsim 3,
//    naming the lost rank and the call.
//  - SIGKILL inside the first collective item (SHARDSIM_TEST_DIE_INSIDE=collective), after the
//    ranks agreed to start it: rank 0 is blocked in MPI's blocking collective and never reaches a
//    wait of its own, so what it leaves is the record its SIGTERM handler wrote.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/common/process_util.h"

namespace {

using nlohmann::json;
using shardsim::test_util::run;
using shardsim::test_util::slurp;
namespace fs = std::filesystem;

constexpr int kItemsBeforeDeath = 3;

struct Outcome {
  int rc = 0;
  std::string log;
  fs::path samples;
};

// Runs the 2-rank quick calibration with rank 1 raising `signal` after kItemsBeforeDeath items;
// with `through_launcher`, as `shardsim calibrate --launcher "mpirun ..."` (calibrate_launch.h);
// with `verbose`, --verbose (one line per measured item although the log is a file).
Outcome calibrate_with_dying_rank(const std::string& name, int signal,
                                  bool through_launcher = false, bool verbose = false,
                                  bool inside_collective = false) {
  const fs::path dir =
      fs::temp_directory_path() / ("shardsim_lost_rank_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path log = dir / "calibrate.log";
  // `timeout` bounds a hang (the test's point is that there is none); -x passes the hook to
  // every rank (needed across nodes, harmless here).
  const std::string mpirun =
      shardsim::test_util::mpirun(SHARDSIM_MPIEXEC, 2) + "-x SHARDSIM_TEST_DIE_SIGNAL " +
      (inside_collective ? "-x SHARDSIM_TEST_DIE_INSIDE" : "-x SHARDSIM_TEST_DIE_AFTER_ITEMS");
  const std::string launch =
      through_launcher ? std::string(SHARDSIM_BINARY) + " calibrate --launcher \"" + mpirun + "\""
                       : mpirun + " " + SHARDSIM_BINARY + " calibrate";
  const std::string hook =
      inside_collective ? std::string("SHARDSIM_TEST_DIE_INSIDE=collective")
                        : "SHARDSIM_TEST_DIE_AFTER_ITEMS=" + std::to_string(kItemsBeforeDeath);
  const std::string cmd = hook + " SHARDSIM_TEST_DIE_SIGNAL=" + std::to_string(signal) +
                          " timeout -k 5 90 " + launch + " --backend cpu --quick" +
                          (verbose ? " --verbose" : "") + " -o " + (dir / "p.json").string() +
                          " > " + log.string() + " 2>&1";
  Outcome out;
  out.rc = run(cmd);
  out.log = slurp(log);
  out.samples = dir / "p.samples.json";
  return out;
}

// The .partial file parses and holds exactly the items measured before the death (`items`;
// -1: at least one, none of them a collective: the death came inside the first collective).
json expect_partial(const Outcome& o, int items = kItemsBeforeDeath) {
  const fs::path partial = o.samples.string() + ".partial";
  EXPECT_TRUE(fs::exists(partial)) << o.log;
  if (!fs::exists(partial)) return json();
  const json doc = json::parse(slurp(partial));
  EXPECT_EQ(doc["complete"], false);
  if (items >= 0) {
    EXPECT_EQ(doc["items"].size(), static_cast<std::size_t>(items)) << o.log;
  } else {
    EXPECT_GE(doc["items"].size(), 1u) << o.log;
    for (const json& item : doc["items"])
      EXPECT_NE(item["name"].get<std::string>().rfind("collective/", 0), 0u) << item["name"];
  }
  for (const json& item : doc["items"]) EXPECT_GT(item["median_s"].get<double>(), 0.0);
  EXPECT_FALSE(fs::exists(o.samples));  // never complete
  return doc;
}

TEST(calibrate_lost_rank, KilledRankIsNamedAndSamplesKept) {
  const Outcome o = calibrate_with_dying_rank("kill", 9);
  ASSERT_NE(o.rc, 124) << "hung:\n" << o.log;
  EXPECT_EQ(o.rc, 137) << o.log;  // mpirun's own status: 128 + SIGKILL of rank 1
  EXPECT_NE(o.log.find("rank 1 lost during MPI_"), std::string::npos) << o.log;
  const json doc = expect_partial(o);
  if (doc.is_null()) return;
  // Rank 0 had time (mpirun's SIGTERM, then SIGKILL 1 s later) to record the error.
  ASSERT_TRUE(doc["error"].is_object()) << o.log;
  EXPECT_EQ(doc["error"]["rank"], 0);
  EXPECT_EQ(doc["error"]["lost_ranks"], json::array({1}));
  EXPECT_EQ(doc["error"]["call"].get<std::string>().rfind("MPI_", 0), 0u) << doc["error"];
  EXPECT_NE(doc["error"]["message"].get<std::string>().find("rank 1 lost during"),
            std::string::npos)
      << doc["error"];
}

TEST(calibrate_lost_rank, CrashedRankExitsThreeNamingTheSignal) {
  const Outcome o = calibrate_with_dying_rank("segv", 11);
  ASSERT_NE(o.rc, 124) << "hung:\n" << o.log;
  EXPECT_EQ(o.rc, 3) << o.log;
  EXPECT_NE(o.log.find("rank 1 crashed: SIGSEGV"), std::string::npos) << o.log;
  // The log is a file and --verbose was not given: no per-item lines ("[   1/104] gemm/...").
  EXPECT_EQ(o.log.find("[   1/"), std::string::npos) << o.log;
  const fs::path error_file = o.samples.string() + ".rank1.error";
  ASSERT_TRUE(fs::exists(error_file)) << o.log;
  const json error = json::parse(slurp(error_file));
  EXPECT_EQ(error["call"], "SIGSEGV");
  EXPECT_EQ(error["rank"], 1);
  EXPECT_EQ(error["signal"], 11);
  EXPECT_FALSE(error["item"].get<std::string>().empty()) << error;
  expect_partial(o);
}

// The same SIGKILL with shardsim starting mpirun itself: mpirun still exits 137, but the user's
// command exits 3 and names the lost rank and the call, and the items before are kept.
TEST(calibrate_lost_rank, LauncherModeExitsThreeForAKilledRank) {
  const Outcome o = calibrate_with_dying_rank("launcher", 9, true, true);
  ASSERT_NE(o.rc, 124) << "hung:\n" << o.log;
  EXPECT_EQ(o.rc, 3) << o.log;
  EXPECT_NE(o.log.find("error: calibration failed: MPI_"), std::string::npos) << o.log;
  EXPECT_NE(o.log.find("rank 1 lost during MPI_"), std::string::npos) << o.log;
  EXPECT_NE(o.log.find("the launcher exited with status 137"), std::string::npos) << o.log;
  EXPECT_NE(o.log.find("3 item(s) measured before it are kept"), std::string::npos) << o.log;
  // --verbose reaches the launched ranks: rank 0 printed a line for each of the 3 items.
  for (const char* n : {"[   1/", "[   2/", "[   3/"})
    EXPECT_NE(o.log.find(n), std::string::npos) << n << "\n" << o.log;
  expect_partial(o);
}

// Rank 1 is killed inside the first collective item; rank 0, inside the item's blocking
// MPI collective, gets mpirun's SIGTERM and is killed a second later without returning from it.
// Its handler's record names the lost rank and the item (rank_signals.h), and the items measured
// before are kept.
TEST(calibrate_lost_rank, SurvivorBlockedInACollectiveLeavesItsRecord) {
  const Outcome o = calibrate_with_dying_rank("blocked", 9, false, false, true);
  ASSERT_NE(o.rc, 124) << "hung:\n" << o.log;
  EXPECT_EQ(o.rc, 137) << o.log;  // mpirun's own status: 128 + SIGKILL of rank 1
  EXPECT_NE(o.log.find("SHARDSIM_TEST_DIE_INSIDE"), std::string::npos) << o.log;
  const fs::path error_file = o.samples.string() + ".rank0.error";
  ASSERT_TRUE(fs::exists(error_file)) << o.log;
  const json error = json::parse(slurp(error_file));
  EXPECT_EQ(error["rank"], 0);
  EXPECT_EQ(error["signal"], 15);  // SIGTERM, from mpirun
  EXPECT_EQ(error["item"].get<std::string>().rfind("collective/mpi/", 0), 0u) << error;
  EXPECT_EQ(error["call"], error["item"]);
  EXPECT_EQ(error["lost_ranks"], json::array({1})) << error;
  const std::string message = error["message"].get<std::string>();
  EXPECT_EQ(message.rfind("rank 1 lost during collective/mpi/", 0), 0u) << message;
  EXPECT_NE(message.find("interrupted by SIGTERM"), std::string::npos) << message;
  expect_partial(o, -1);
}

// The same under `shardsim calibrate --launcher`: exit 3, the message names the lost rank and the
// collective item rank 0 was blocked in.
TEST(calibrate_lost_rank, LauncherModeNamesTheCollectiveASurvivorWasBlockedIn) {
  const Outcome o = calibrate_with_dying_rank("blocked_launcher", 9, true, false, true);
  ASSERT_NE(o.rc, 124) << "hung:\n" << o.log;
  EXPECT_EQ(o.rc, 3) << o.log;
  EXPECT_NE(o.log.find("error: calibration failed: rank 0: collective/mpi/"), std::string::npos)
      << o.log;
  EXPECT_NE(o.log.find("rank 1 lost during collective/mpi/"), std::string::npos) << o.log;
  EXPECT_NE(o.log.find("the launcher exited with status 137"), std::string::npos) << o.log;
  expect_partial(o, -1);
}

}  // namespace
