// Summary statistics of timing samples: small pure functions, formula in a comment.
#pragma once

#include <vector>

namespace shardsim::kernels {

// Median of `v` (seconds): the middle element of the sorted samples, or the mean of the two middle
// ones for an even count. REQUIRES: !v.empty().
[[nodiscard]] double median(std::vector<double> v);

// Median absolute deviation: median_i |v_i - median(v)|. A spread that one outlier (a preempted
// repetition) does not move. REQUIRES: !v.empty().
[[nodiscard]] double median_absolute_deviation(const std::vector<double>& v);

struct Summary {
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
  double mad_s = 0;  // median absolute deviation
};

// REQUIRES: !samples.empty().
[[nodiscard]] Summary summarize(const std::vector<double>& samples);

}  // namespace shardsim::kernels
