#include "kernels/common/gemm_check.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "kernels/common/hash.h"

namespace shardsim::kernels {
namespace {

std::vector<float> eighths_vector(std::size_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = eighths(i, seed);
  return v;
}

struct Reference {
  double sum = 0;  // ref(i, j) = sum_p A(i, p) B(p, j)
  double l1 = 0;   // sum_p |A(i, p) B(p, j)|
};

// ref(i, j) in double, reading A and B through their stored layouts, and the sum of the
// products' magnitudes.
Reference reference_entry(const GemmShape& s, const GemmInputs& in, std::int64_t i,
                          std::int64_t j) {
  Reference r;
  for (std::int64_t p = 0; p < s.k; ++p) {
    const float a = s.trans_a ? in.a[static_cast<std::size_t>(p * s.m + i)]
                              : in.a[static_cast<std::size_t>(i * s.k + p)];
    const float b = s.trans_b ? in.b[static_cast<std::size_t>(j * s.k + p)]
                              : in.b[static_cast<std::size_t>(p * s.n + j)];
    const double product = static_cast<double>(a) * static_cast<double>(b);
    r.sum += product;
    r.l1 += std::fabs(product);
  }
  return r;
}

}  // namespace

GemmInputs make_timing_inputs(const GemmShape& s) {
  const auto values = [](std::size_t n, std::uint64_t seed) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = 2.0f * uniform01(i, seed) - 1.0f;
    return v;
  };
  return {values(static_cast<std::size_t>(s.m * s.k), kTimingSeedA),
          values(static_cast<std::size_t>(s.k * s.n), kTimingSeedB)};
}

GemmInputs make_gemm_inputs(const GemmShape& s) {
  return {eighths_vector(static_cast<std::size_t>(s.m * s.k), 11),
          eighths_vector(static_cast<std::size_t>(s.k * s.n), 12)};
}

Verification check_gemm(const GemmShape& s, const GemmInputs& in, const GemmOutputAt& c_at,
                        double rtol, double partial_rounding, int samples) {
  std::vector<std::pair<std::int64_t, std::int64_t>> at = {
      {0, 0}, {0, s.n - 1}, {s.m - 1, 0}, {s.m - 1, s.n - 1}};
  for (int t = 0; t < samples; ++t) {
    const auto h = mix64(static_cast<std::uint64_t>(t) + 99);
    at.emplace_back(static_cast<std::int64_t>(h % static_cast<std::uint64_t>(s.m)),
                    static_cast<std::int64_t>((h >> 32) % static_cast<std::uint64_t>(s.n)));
  }
  double worst = 0;
  for (const auto& [i, j] : at) {
    const Reference ref = reference_entry(s, in, i, j);
    const double want = ref.sum;
    const double got = c_at(i, j);
    const double allowed = rtol * std::max(std::fabs(want), 1.0) + partial_rounding * ref.l1;
    if (!(std::fabs(got - want) <= allowed)) {
      std::ostringstream msg;
      msg << "C(" << i << ", " << j << ") = " << got << ", reference " << want;
      return {false, msg.str()};
    }
    worst = std::max(worst, std::fabs(got - want) / allowed);
  }
  std::ostringstream msg;
  msg << at.size() << " sampled entries within tolerance (worst " << worst << " of allowed)";
  return {true, msg.str()};
}

}  // namespace shardsim::kernels
