#include "kernels/common/memory_ops.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "kernels/common/hash.h"

namespace shardsim::kernels {
namespace {

using Vec = std::vector<float>;

// Uniform in [lo, hi) from the shared hash, one stream per (tensor, element).
Vec fill(std::size_t n, std::uint64_t tensor, float lo, float hi) {
  Vec v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * uniform01(i, tensor);
  return v;
}

// Row statistics in double for the normalisations: {mean, mean of squares}.
std::pair<double, double> row_moments(const Vec& x, std::size_t row, std::size_t cols) {
  double sum = 0;
  double sq = 0;
  for (std::size_t c = 0; c < cols; ++c) {
    const double v = x[row * cols + c];
    sum += v;
    sq += v * v;
  }
  return {sum / static_cast<double>(cols), sq / static_cast<double>(cols)};
}

std::vector<double> reference_norm(MemOp op, const MemOpData& d, MemoryShape s, double eps) {
  const auto rows = static_cast<std::size_t>(s.rows);
  const auto cols = static_cast<std::size_t>(s.cols);
  const Vec& x = d.inputs[0];
  std::vector<double> y(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto [mean, sq] = row_moments(x, r, cols);
    const bool ln = op == MemOp::kLayernorm;
    const double shift = ln ? mean : 0.0;
    const double inv = 1.0 / std::sqrt((ln ? sq - mean * mean : sq) + eps);
    for (std::size_t c = 0; c < cols; ++c) {
      const double beta = ln ? d.inputs[2][c] : 0.0;
      y[r * cols + c] = (x[r * cols + c] - shift) * inv * d.inputs[1][c] + beta;
    }
  }
  return y;
}

std::vector<double> reference_softmax(const Vec& x, MemoryShape s) {
  const auto rows = static_cast<std::size_t>(s.rows);
  const auto cols = static_cast<std::size_t>(s.cols);
  std::vector<double> y(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = &x[r * cols];
    const double mx = *std::max_element(row, row + cols);
    double sum = 0;
    for (std::size_t c = 0; c < cols; ++c) sum += std::exp(row[c] - mx);
    for (std::size_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(row[c] - mx) / sum;
  }
  return y;
}

std::vector<double> reference_pointwise(MemOp op, const MemOpData& d, const MemOpConstants& k) {
  const Vec& a = d.inputs[0];
  std::vector<double> y(a.size());
  const double sqrt_2_over_pi = std::sqrt(2.0 / M_PI);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = a[i];
    if (op == MemOp::kGelu) {
      y[i] = 0.5 * x * (1.0 + std::tanh(sqrt_2_over_pi * (x + 0.044715 * x * x * x)));
    } else if (op == MemOp::kSwiglu) {
      y[i] = x / (1.0 + std::exp(-x)) * d.inputs[1][i];
    } else {  // dropout_residual
      const bool keep = dropout_keep(i, k.dropout_seed, k.dropout_p);
      y[i] = d.inputs[1][i] + (keep ? x / (1.0 - k.dropout_p) : 0.0);
    }
  }
  return y;
}

// Adam at step t = 1: bias corrections 1 - b1 and 1 - b2. Output {param, m, v} concatenated.
std::vector<double> reference_adam(const MemOpData& d, const MemOpConstants& k) {
  const std::size_t n = d.inputs[0].size();
  std::vector<double> out(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const double g = d.inputs[1][i];
    const double m = k.beta1 * static_cast<double>(d.inputs[2][i]) + (1.0 - k.beta1) * g;
    const double v = k.beta2 * static_cast<double>(d.inputs[3][i]) + (1.0 - k.beta2) * g * g;
    const double step = (m / (1.0 - k.beta1)) / (std::sqrt(v / (1.0 - k.beta2)) + k.adam_eps);
    out[i] = d.inputs[0][i] - k.lr * step;
    out[n + i] = m;
    out[2 * n + i] = v;
  }
  return out;
}

}  // namespace

std::string_view mem_op_name(MemOp op) {
  switch (op) {
    case MemOp::kLayernorm:
      return "layernorm";
    case MemOp::kRmsnorm:
      return "rmsnorm";
    case MemOp::kSoftmax:
      return "softmax";
    case MemOp::kGelu:
      return "gelu";
    case MemOp::kSwiglu:
      return "swiglu";
    case MemOp::kDropoutResidual:
      return "dropout_residual";
    case MemOp::kAdam:
      return "adam";
  }
  return "layernorm";
}

double mem_op_bytes(MemOp op, MemoryShape s) {
  const double n = static_cast<double>(s.rows) * static_cast<double>(s.cols);
  const double cols = static_cast<double>(s.cols);
  switch (op) {
    case MemOp::kLayernorm:
      return 4.0 * (2.0 * n + 2.0 * cols);
    case MemOp::kRmsnorm:
      return 4.0 * (2.0 * n + cols);
    case MemOp::kSoftmax:
    case MemOp::kGelu:
      return 4.0 * 2.0 * n;
    case MemOp::kSwiglu:
    case MemOp::kDropoutResidual:
      return 4.0 * 3.0 * n;
    case MemOp::kAdam:
      return 4.0 * 7.0 * n;
  }
  return 0.0;
}

MemOpData make_mem_op_data(MemOp op, MemoryShape s, const MemOpConstants& k) {
  const auto n = static_cast<std::size_t>(s.rows * s.cols);
  const auto cols = static_cast<std::size_t>(s.cols);
  MemOpData d;
  d.inputs.push_back(fill(n, 1, -2.0f, 2.0f));
  switch (op) {
    case MemOp::kLayernorm:
      d.inputs.push_back(fill(cols, 2, 0.5f, 1.5f));
      d.inputs.push_back(fill(cols, 3, -0.5f, 0.5f));
      d.expected = reference_norm(op, d, s, k.eps);
      break;
    case MemOp::kRmsnorm:
      d.inputs.push_back(fill(cols, 2, 0.5f, 1.5f));
      d.expected = reference_norm(op, d, s, k.eps);
      break;
    case MemOp::kSoftmax:
      d.expected = reference_softmax(d.inputs[0], s);
      break;
    case MemOp::kGelu:
    case MemOp::kSwiglu:
    case MemOp::kDropoutResidual:
      if (op != MemOp::kGelu) d.inputs.push_back(fill(n, 2, -2.0f, 2.0f));
      d.expected = reference_pointwise(op, d, k);
      break;
    case MemOp::kAdam:
      d.inputs.push_back(fill(n, 2, -1e-2f, 1e-2f));  // grad
      d.inputs.push_back(fill(n, 3, -1e-3f, 1e-3f));  // m
      d.inputs.push_back(fill(n, 4, 0.0f, 1e-5f));    // v >= 0
      d.expected = reference_adam(d, k);
      break;
  }
  return d;
}

Verification compare(const std::vector<float>& got, const std::vector<double>& expected,
                     double rtol, double atol) {
  if (got.size() != expected.size()) {
    return {false, "size " + std::to_string(got.size()) + " != " + std::to_string(expected.size())};
  }
  double worst = 0;  // max |got - want| / (rtol |want| + atol): ok when <= 1
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(got[i] - expected[i]);
    const double allowed = rtol * std::fabs(expected[i]) + atol;
    if (!(err <= allowed)) {
      std::ostringstream s;
      s << "element " << i << ": got " << got[i] << ", expected " << expected[i];
      return {false, s.str()};
    }
    worst = std::max(worst, err / allowed);
  }
  std::ostringstream s;
  s << got.size() << " elements within tolerance (worst " << worst << " of allowed)";
  return {true, s.str()};
}

Descriptor memory_bound_descriptor(MemOp op, MemoryShape s) {
  Descriptor d;
  d.kind = Kind::kMemoryBound;
  d.name = "memory_bound/" + std::string(mem_op_name(op)) + "/" + std::to_string(s.rows) + "x" +
           std::to_string(s.cols);
  d.params = {{"op", mem_op_name(op)}, {"rows", s.rows}, {"cols", s.cols}, {"dtype", "fp32"}};
  d.work.bytes = mem_op_bytes(op, s);
  return d;
}

}  // namespace shardsim::kernels
