// busiest_node_sum against the rank-by-rank loop it replaced (every node, every rank), over
// layouts of every shape: blocks shorter and longer than a node, blocks that straddle nodes,
// fewer nodes than the layout's period, and one stage.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "simulator/memory/node_sums.h"

namespace shardsim {
namespace {

double rank_by_rank(const std::vector<double>& values, long long block, long long window,
                    long long nodes) {
  double best = 0;
  for (long long n = 0; n < nodes; ++n) {
    double sum = 0;
    for (long long r = n * window; r < (n + 1) * window; ++r)
      sum += values[static_cast<std::size_t>((r / block) % static_cast<long long>(values.size()))];
    best = std::max(best, sum);
  }
  return best;
}

TEST(node_sums, EqualsTheRankByRankLoop) {
  int cases = 0;
  for (int stages = 1; stages <= 6; ++stages) {
    // Distinct values, one stage much larger, so the busiest node depends on the placement.
    std::vector<double> values;
    for (int s = 0; s < stages; ++s)
      values.push_back(1e9 * (s % 3 + 1) + (s == stages / 2 ? 7e10 : 0));
    for (long long block : {1, 2, 3, 5, 7, 8, 9, 12, 16, 24})
      for (long long window : {1, 2, 3, 4, 8, 16})
        for (long long nodes : {1LL, 2LL, 3LL, 5LL, 40LL, 97LL}) {
          EXPECT_EQ(busiest_node_sum(values, block, window, nodes),
                    rank_by_rank(values, block, window, nodes))
              << "stages " << stages << " block " << block << " window " << window << " nodes "
              << nodes;
          ++cases;
        }
  }
  EXPECT_EQ(cases, 6 * 10 * 6 * 6);
}

// The case it was written for: a million GPUs (131,072 nodes of 8) in 8 stages of 131,072 ranks:
// every node within one stage, the largest stage's 8 GPUs the busiest: 8 x 3e11.
TEST(node_sums, AMillionGpusAtOnce) {
  const std::vector<double> values = {1e11, 2e11, 3e11, 1e11, 1e11, 1e11, 1e11, 1e11};
  EXPECT_EQ(busiest_node_sum(values, 131072, 8, 131072), 8 * 3e11);
}

}  // namespace
}  // namespace shardsim
