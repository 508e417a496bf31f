#include "simulator/memory/node_sums.h"

#include <algorithm>
#include <numeric>

namespace shardsim {
namespace {

// The sum over ranks [start, start + window), start in [0, period): block by block, each term a
// whole count times a value, so the sum is as exact as the rank-by-rank one.
double window_sum(const std::vector<double>& values, long long block, long long window,
                  long long start) {
  const long long stages = static_cast<long long>(values.size());
  long long stage = (start / block) % stages, offset = start % block, left = window;
  double sum = 0;
  while (left > 0) {
    const long long take = std::min(block - offset, left);
    sum += static_cast<double>(take) * values[static_cast<std::size_t>(stage)];
    left -= take;
    offset = 0;
    stage = (stage + 1) % stages;
  }
  return sum;
}

}  // namespace

double busiest_node_sum(const std::vector<double>& values, long long block, long long window,
                        long long nodes) {
  const long long period = block * static_cast<long long>(values.size());
  // Node n starts at n * window mod period: the multiples of d = gcd(period, window), all of
  // them once nodes >= period / d.
  const long long d = std::gcd(period, window);
  double best = 0;
  if (nodes < period / d) {
    for (long long n = 0; n < nodes; ++n)
      best = std::max(best, window_sum(values, block, window, (n * window) % period));
    return best;
  }
  // The sum is piecewise linear in the start, with breaks where the first rank (start = k
  // block) or the one past the last (start = k block - window) crosses a block boundary; on each
  // piece its maximum over the starts is at the start nearest one of the piece's ends.
  best = window_sum(values, block, window, 0);
  for (long long k = 0; k < static_cast<long long>(values.size()); ++k)
    for (const long long edge : {k * block, k * block - window}) {
      const long long b = ((edge % period) + period) % period;
      const long long below = b / d * d;
      for (const long long start : {below, below + d})
        best = std::max(best, window_sum(values, block, window, start % period));
    }
  return best;
}

}  // namespace shardsim
