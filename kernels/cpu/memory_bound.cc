// The memory-bound kernels of memory_ops.h in plain C++ (fp32, one pass per row or element where
// the maths allows, loops the compiler can vectorise), verified against the double reference.
#include <algorithm>
#include <cmath>

#include "kernels/common/hash.h"
#include "kernels/common/memory_ops.h"
#include "kernels/cpu/descriptors.h"

namespace shardsim::kernels::cpu {
namespace {

using Vec = std::vector<float>;

void norm_rows(const Vec& x, const Vec& gamma, const Vec* beta, Vec& y, std::size_t cols,
               float eps) {
  for (std::size_t r = 0; r < x.size() / cols; ++r) {
    const float* in = &x[r * cols];
    float* out = &y[r * cols];
    float sum = 0;
    float sq = 0;
    for (std::size_t c = 0; c < cols; ++c) {
      sum += in[c];
      sq += in[c] * in[c];
    }
    const float n = static_cast<float>(cols);
    const float mean = beta != nullptr ? sum / n : 0.0f;
    const float var = beta != nullptr ? sq / n - mean * mean : sq / n;  // rmsnorm: mean(x^2)
    const float inv = 1.0f / std::sqrt(var + eps);
    for (std::size_t c = 0; c < cols; ++c) {
      out[c] = (in[c] - mean) * inv * gamma[c] + (beta != nullptr ? (*beta)[c] : 0.0f);
    }
  }
}

void softmax_rows(const Vec& x, Vec& y, std::size_t cols) {
  for (std::size_t r = 0; r < x.size() / cols; ++r) {
    const float* in = &x[r * cols];
    float* out = &y[r * cols];
    const float mx = *std::max_element(in, in + cols);
    float sum = 0;
    for (std::size_t c = 0; c < cols; ++c) sum += (out[c] = std::exp(in[c] - mx));
    const float inv = 1.0f / sum;
    for (std::size_t c = 0; c < cols; ++c) out[c] *= inv;
  }
}

void pointwise(MemOp op, const std::vector<Vec>& in, Vec& y, const MemOpConstants& k) {
  const Vec& a = in[0];
  const float scale = 1.0f / (1.0f - k.dropout_p);
  constexpr float kSqrt2OverPi = 0.7978845608f;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const float x = a[i];
    if (op == MemOp::kGelu) {
      // 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)): one exp instead of a tanh.
      y[i] = x / (1.0f + std::exp(-2.0f * kSqrt2OverPi * (x + 0.044715f * x * x * x)));
    } else if (op == MemOp::kSwiglu) {
      y[i] = x / (1.0f + std::exp(-x)) * in[1][i];
    } else {
      y[i] = in[1][i] + (dropout_keep(i, k.dropout_seed, k.dropout_p) ? x * scale : 0.0f);
    }
  }
}

// In place on {param, grad, m, v}; step t = 1 (memory_ops.h).
void adam(std::vector<Vec>& t, const MemOpConstants& k) {
  const float c1 = 1.0f / (1.0f - k.beta1);
  const float c2 = 1.0f / (1.0f - k.beta2);
  Vec& p = t[0];
  const Vec& g = t[1];
  Vec& m = t[2];
  Vec& v = t[3];
  for (std::size_t i = 0; i < p.size(); ++i) {
    m[i] = k.beta1 * m[i] + (1.0f - k.beta1) * g[i];
    v[i] = k.beta2 * v[i] + (1.0f - k.beta2) * g[i] * g[i];
    p[i] -= k.lr * (m[i] * c1) / (std::sqrt(v[i] * c2) + k.adam_eps);
  }
}

class MemOpInstance final : public Instance {
 public:
  MemOpInstance(MemOp op, MemoryShape s)
      : op_(op), s_(s), data_(make_mem_op_data(op, s, k_)), y_(data_.inputs[0].size()) {}

  void run(int times) override {
    const auto cols = static_cast<std::size_t>(s_.cols);
    auto& in = data_.inputs;
    for (int t = 0; t < times; ++t) {
      switch (op_) {
        case MemOp::kLayernorm:
          norm_rows(in[0], in[1], &in[2], y_, cols, k_.eps);
          break;
        case MemOp::kRmsnorm:
          norm_rows(in[0], in[1], nullptr, y_, cols, k_.eps);
          break;
        case MemOp::kSoftmax:
          softmax_rows(in[0], y_, cols);
          break;
        case MemOp::kAdam:
          adam(in, k_);
          break;
        default:
          pointwise(op_, in, y_, k_);
      }
    }
  }

  Verification verify() override {
    if (op_ != MemOp::kAdam) return compare(y_, data_.expected, 1e-4, 1e-6);
    Vec pmv = data_.inputs[0];
    pmv.insert(pmv.end(), data_.inputs[2].begin(), data_.inputs[2].end());
    pmv.insert(pmv.end(), data_.inputs[3].begin(), data_.inputs[3].end());
    return compare(pmv, data_.expected, 1e-4, 1e-9);
  }

 private:
  MemOp op_;
  MemoryShape s_;
  MemOpConstants k_;
  MemOpData data_;
  Vec y_;
};

}  // namespace

std::vector<Descriptor> memory_bound_descriptors(const SweepPlan& plan) {
  std::vector<Descriptor> out;
  for (const MemoryShape& s : plan.memory_shapes) {
    for (const MemOp op : kAllMemOps) {
      Descriptor d = memory_bound_descriptor(op, s);
      d.setup = [op, s] { return std::make_unique<MemOpInstance>(op, s); };
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace shardsim::kernels::cpu
