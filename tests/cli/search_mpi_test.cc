// `mpirun -np N shardsim search` (simulator/cli/search_mpi.h): the space split over ranks gives
// the same JSON report, byte for byte, as one process, for 2 and 3 ranks (3 ranks on 2 cores:
// --oversubscribe), and only rank 0 prints or writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/common/process_util.h"

namespace {

namespace fs = std::filesystem;
using shardsim::test_util::run;
using shardsim::test_util::slurp;

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("shardsim_search_mpi_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

// A shipped example's space (about 10,000 plans, a second on one core).
constexpr const char* kSearch = " search llama3-8b-8xh100 --top 5";

TEST(search_mpi, RanksGiveTheSameReportAsOneProcess) {
  const fs::path one = scratch("one.json");
  ASSERT_EQ(run(std::string(SHARDSIM_BINARY) + kSearch + " --threads 1 --json -o " + one.string()),
            0);
  const std::string expected = slurp(one);
  ASSERT_FALSE(expected.empty());
  for (int np : {2, 3}) {
    const fs::path out = scratch("np" + std::to_string(np) + ".json");
    const fs::path log = scratch("np" + std::to_string(np) + ".log");
    ASSERT_EQ(run(shardsim::test_util::mpirun(SHARDSIM_MPIEXEC, np) + SHARDSIM_BINARY + kSearch +
                  " --json -o " + out.string() + " 2>" + log.string()),
              0)
        << slurp(log);
    EXPECT_EQ(slurp(out), expected) << np << " ranks";
    EXPECT_EQ(slurp(log), "") << np << " ranks";  // no progress: stderr is no terminal
  }
}

TEST(search_mpi, OnlyRankZeroPrints) {
  const fs::path out = scratch("text.txt");
  ASSERT_EQ(run(shardsim::test_util::mpirun(SHARDSIM_MPIEXEC, 2) + SHARDSIM_BINARY + kSearch +
                " > " + out.string()),
            0);
  const std::string text = slurp(out);
  // The report's first line ("search  <name>: ...") once, not once per rank.
  const std::string header = "search  llama3-8b-8xh100";
  ASSERT_NE(text.find(header), std::string::npos) << text;
  EXPECT_EQ(text.find(header, text.find(header) + 1), std::string::npos) << text;
}

}  // namespace
