// simulator/core/parallel.h: every index runs once whatever the thread count, and an exception
// thrown on any worker reaches the caller (it terminated the process when it escaped a worker
// thread: compare --threads 2 under a memory limit aborted with SIGABRT; found by review).
#include "simulator/core/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <stdexcept>
#include <vector>

namespace shardsim {
namespace {

TEST(parallel_for, EveryIndexOnceForAnyThreadCount) {
  for (const int threads : {1, 2, 3, 8, 100}) {
    std::vector<std::atomic<int>> hits(57);
    parallel_for(hits.size(), threads, [&](std::size_t i, int worker) {
      EXPECT_GE(worker, 0);
      EXPECT_LT(worker, worker_count(hits.size(), threads));
      hits[i].fetch_add(1);
    });
    for (const auto& h : hits) EXPECT_EQ(h.load(), 1) << threads << " threads";
  }
  int calls = 0;
  parallel_for(0, 4, [&](std::size_t, int) { ++calls; });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(worker_count(0, 4), 1);
  EXPECT_EQ(worker_count(3, 8), 3);  // never more workers than items
  EXPECT_EQ(worker_count(10, 0), 1);
}

TEST(parallel_for, AnExceptionOnAnyWorkerReachesTheCaller) {
  for (const int threads : {1, 2, 4}) {
    // Index 5 throws on whichever worker takes it; with 2+ threads that is often not worker 0.
    EXPECT_THROW(parallel_for(200, threads,
                              [](std::size_t i, int) {
                                if (i == 5) throw std::bad_alloc();
                              }),
                 std::bad_alloc);
    // Every worker throwing: the first one is rethrown, the process survives.
    EXPECT_THROW(
        parallel_for(200, threads, [](std::size_t, int) { throw std::logic_error("bug"); }),
        std::logic_error);
  }
}

}  // namespace
}  // namespace shardsim
