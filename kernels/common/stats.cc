#include "kernels/common/stats.h"

#include <algorithm>
#include <cmath>

namespace shardsim::kernels {

double median(std::vector<double> v) {
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  // Even count: the lower middle is the largest element left of `mid`.
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

double median_absolute_deviation(const std::vector<double>& v) {
  const double m = median(v);
  std::vector<double> dev(v.size());
  std::transform(v.begin(), v.end(), dev.begin(), [m](double x) { return std::fabs(x - m); });
  return median(std::move(dev));
}

Summary summarize(const std::vector<double>& samples) {
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  return {median(samples), *lo, *hi, median_absolute_deviation(samples)};
}

}  // namespace shardsim::kernels
