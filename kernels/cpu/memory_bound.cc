// The memory-bound kernels of memory_ops.h in plain C++ (fp32, one pass per row or element where
// the maths allows, loops the compiler can vectorise), verified against the double reference.
// LayerNorm, GeLU and Adam are the composite step's own kernels (composite_ops.h), so what the
// sweep measures is what `validate` runs.
#include <algorithm>
#include <cmath>

#include "kernels/common/hash.h"
#include "kernels/common/memory_ops.h"
#include "kernels/cpu/composite_ops.h"
#include "kernels/cpu/descriptors.h"

namespace shardsim::kernels::cpu {
namespace {

using Vec = std::vector<float>;

void rmsnorm_rows(const Vec& x, const Vec& gamma, Vec& y, std::size_t cols, float eps) {
  for (std::size_t r = 0; r < x.size() / cols; ++r) {
    const float* in = &x[r * cols];
    float* out = &y[r * cols];
    float sq = 0;
    for (std::size_t c = 0; c < cols; ++c) sq += in[c] * in[c];
    const float inv = 1.0f / std::sqrt(sq / static_cast<float>(cols) + eps);
    for (std::size_t c = 0; c < cols; ++c) out[c] = in[c] * inv * gamma[c];
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
  for (std::size_t i = 0; i < a.size(); ++i) {
    const float x = a[i];
    if (op == MemOp::kSwiglu) {
      y[i] = x / (1.0f + std::exp(-x)) * in[1][i];
    } else {
      y[i] = in[1][i] + (dropout_keep(i, k.dropout_seed, k.dropout_p) ? x * scale : 0.0f);
    }
  }
}

// In place on {param, grad, m, v}; step t = 1 (memory_ops.h): the composite step's Adam.
void adam(std::vector<Vec>& t, const MemOpConstants& k) {
  composite::adam(t[0], t[1], t[2], t[3], 1, 1.0f, {k.lr, k.beta1, k.beta2, k.adam_eps});
}

// Gives input i (from 1) an allocation of `size + i * kStaggerFloats` floats, the output one more
// step, so that arrays of one power-of-two size are not allocated alike (STREAM offsets its arrays
// for the same reason: arrays streamed in step can contend for cache sets). What this changes is
// placement only, and for large arrays less than the constant suggests: glibc serves them with
// mmap, page-aligned plus its 16-byte header, so the 64 B part is lost and only their page-level
// placement differs (a second reader checked: at 2^23 floats every array starts 16 B past a page).
// The effect was measured, its mechanism is not established: on the 2-vCPU development VM, the
// sweep's Adam over 2^23 parameters on 2 ranks, 8 processes each (2026-11-24): plain 35.8-39.7 ms
// in 6, staggered 29.1-29.5 ms in 6; the other 2 of each ran 77-89 ms, a per-process slow mode
// of this VM that no layout avoids (README "Validating predictions"). The kernel's traffic is
// unchanged.
constexpr std::size_t kStaggerFloats = 1024 + 16;  // 4 KiB + 64 B

// `n` zeros in an allocation of `n + i * kStaggerFloats` floats.
Vec staggered(std::size_t n, std::size_t i) {
  Vec out;
  out.reserve(n + i * kStaggerFloats);
  out.resize(n);
  return out;
}

MemOpData stagger(MemOpData d) {
  for (std::size_t i = 0; i < d.inputs.size(); ++i) {
    Vec moved = staggered(d.inputs[i].size(), i + 1);
    std::copy(d.inputs[i].begin(), d.inputs[i].end(), moved.begin());
    d.inputs[i].swap(moved);
  }
  return d;
}

class MemOpInstance final : public Instance {
 public:
  MemOpInstance(MemOp op, MemoryShape s)
      : op_(op),
        s_(s),
        data_(stagger(make_mem_op_data(op, s, k_))),
        y_(staggered(data_.inputs[0].size(), data_.inputs.size() + 1)) {}

  void run(int times) override {
    const auto cols = static_cast<std::size_t>(s_.cols);
    auto& in = data_.inputs;
    for (int t = 0; t < times; ++t) {
      switch (op_) {
        case MemOp::kLayernorm:  // the composite step's LayerNorm (keeps mean and rstd)
          composite::layernorm_forward(in[0].data(), in[1].data(), in[2].data(), y_.data(),
                                       mean_.data(), rstd_.data(), int(s_.rows), int(s_.cols));
          break;
        case MemOp::kGelu:  // the composite step's GeLU
          composite::gelu_forward(in[0].data(), y_.data(), std::int64_t(y_.size()));
          break;
        case MemOp::kRmsnorm:
          rmsnorm_rows(in[0], in[1], y_, cols, k_.eps);
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
  Vec mean_ = Vec(std::size_t(s_.rows)), rstd_ = Vec(std::size_t(s_.rows));
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
