// The composite training step (composite.h) written once over a backend's kernels. `Ops` supplies
// storage and kernels; everything else (parameter layout, initial values, the batch, the order of
// the ops, timing, verification) is shared, so the cpu and cuda workloads are the same model.
//
// Ops (kernels/cpu/composite.cc, kernels/cuda/composite.cc):
//   using Buffer                     owns n floats where the kernels read them; float* data()
//   using Tokens                     token ids where the kernels read them
//   Buffer zeros(std::size_t n);     Buffer from_host(const std::vector<float>&);
//   std::vector<float> to_host(const Buffer&);   Tokens tokens(const std::vector<std::int32_t>&);
//   row-major kernels with the contracts of kernels/cpu/composite_ops.h: sgemm, layernorm_forward,
//   layernorm_backward, gelu_forward, gelu_backward, add, embedding_forward, embedding_backward,
//   adam(p, g, m, v, n, step, grad_scale), zero(p, n); and, batched over heads,
//   sgemm_batched(..., stride_a, ..., stride_b, ..., stride_c, batch) (one call: `batch`
//   products at fixed float strides), causal_softmax_forward(x, count, s, scale) and
//   causal_softmax_backward(p, dp, count, s, scale) on `count` stacked [s x s] matrices;
//   cross_entropy(logits, targets, t, v) (no result: the device need not be waited for) and
//   double loss() (the last cross_entropy's mean loss; may wait for the device);
//   allreduce_sum(float* g, std::size_t n)   sum over every rank, in place
//   finish()                         waits for the work queued so far (a no-op on the cpu)
// Each Ops call may throw CallError naming the failing library call.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include "kernels/common/comm.h"
#include "kernels/common/composite.h"
#include "kernels/common/descriptor.h"
#include "kernels/common/hash.h"
#include "kernels/common/stats.h"
#include "kernels/common/timing_loop.h"

namespace shardsim::kernels::composite_model {

// Offsets of one block's parameters in the flat buffer.
struct LayerParams {
  std::size_t ln1_g, ln1_b, qkv, out, ln2_g, ln2_b, fc1, fc2;
};

struct Layout {
  std::size_t embed = 0, pos = 0, lnf_g = 0, lnf_b = 0, head = 0, total = 0;
  std::vector<LayerParams> layers;
};

[[nodiscard]] Layout make_layout(const CompositeConfig& c);

// Initial parameters: weights uniform in +-0.02 sqrt(3) (std 0.02, GPT-2's init); norm gains 1,
// shifts 0.
[[nodiscard]] std::vector<float> initial_parameters(const CompositeConfig& c, const Layout& l);

// This rank's fixed batch: token ids and next-token targets, t = seq_len x micro_batch each.
void rank_batch(const CompositeConfig& c, int rank, std::vector<std::int32_t>& tokens,
                std::vector<std::int32_t>& targets);

// Checksum of the parameters that agrees across ranks exactly when the replicas do.
[[nodiscard]] double parameter_checksum(const std::vector<float>& p);

// Per phase, the median over the last `timed` steps of the maximum over ranks (collective).
[[nodiscard]] CompositePhases phase_medians(const std::vector<CompositePhases>& steps, int timed,
                                            const Comm& comm);

// Loss fell on every rank; parameters agree across ranks to 1e-9 relative (collective).
void verify(CompositeResult& r, const Comm& comm, double checksum);

// The timing loop's settings for the composite: one step per sample, exactly timed_steps samples
// after warmup_steps.
[[nodiscard]] LoopConfig composite_loop(const CompositeConfig& c);

template <class Ops>
class Model {
 public:
  Model(const CompositeConfig& c, int rank, Ops& ops)
      : c_(c),
        l_(make_layout(c)),
        t_(c.seq_len * c.micro_batch),
        ops_(ops),
        p_(ops.from_host(initial_parameters(c, l_))),
        g_(ops.zeros(l_.total)),
        m_(ops.zeros(l_.total)),
        v_(ops.zeros(l_.total)) {
    std::vector<std::int32_t> tokens, targets;
    rank_batch(c, rank, tokens, targets);
    tokens_ = ops.tokens(tokens);
    targets_ = ops.tokens(targets);
    const std::size_t t = std::size_t(t_), h = std::size_t(c.hidden), f = std::size_t(c.ffn_hidden);
    for (int i = 0; i < c.layers; ++i)
      acts_.push_back({ops.zeros(t * h), ops.zeros(t * h), ops.zeros(t), ops.zeros(t),
                       ops.zeros(3 * t * h),
                       ops.zeros(std::size_t(c.micro_batch) * c.heads * c.seq_len * c.seq_len),
                       ops.zeros(t * h), ops.zeros(t * h), ops.zeros(t * h), ops.zeros(t),
                       ops.zeros(t), ops.zeros(t * f), ops.zeros(t * f)});
    xf_ = ops.zeros(t * h);
    zf_ = ops.zeros(t * h);
    meanf_ = ops.zeros(t);
    rstdf_ = ops.zeros(t);
    logits_ = ops.zeros(t * std::size_t(c.vocab));
    proj_ = ops.zeros(t * h);
    dh_ = ops.zeros(t * h);
    df_ = ops.zeros(t * f);
    dqkv_ = ops.zeros(3 * t * h);
    dx_ = ops.zeros(t * h);
    dp_ = ops.zeros(std::size_t(c.heads) * c.seq_len * c.seq_len);
  }

  // One training step; returns the loss before the update and the seconds of its phases.
  double step(const Comm& comm, CompositePhases& phases) {
    using Clock = std::chrono::steady_clock;
    const auto seconds = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double>(b - a).count();
    };
    const auto start = Clock::now();
    forward();
    backward();
    ops_.finish();
    const auto computed = Clock::now();
    ops_.allreduce_sum(g_.data(), l_.total);
    ops_.finish();
    const auto reduced = Clock::now();
    ops_.adam(p_.data(), g_.data(), m_.data(), v_.data(), l_.total, ++steps_,
              1.0f / float(comm.size()));
    ops_.finish();
    const auto updated = Clock::now();
    phases = {seconds(start, computed), seconds(computed, reduced), seconds(reduced, updated)};
    // Read after the timed phases: the per-row losses are untouched until the next forward pass.
    return ops_.loss();
  }

  [[nodiscard]] double checksum() { return parameter_checksum(ops_.to_host(p_)); }

 private:
  using Buffer = typename Ops::Buffer;

  // Activations one block keeps for its backward pass.
  struct LayerActs {
    Buffer x, a, mean1, rstd1, qkv, probs, ctx, x2, c, mean2, rstd2, u, g;
  };

  float* P(std::size_t off) { return p_.data() + off; }
  float* G(std::size_t off) { return g_.data() + off; }

  // Y[t x n] = X[t x k] . W[k x n]
  void linear_forward(const float* x, const float* w, float* y, int n, int k) {
    ops_.sgemm(false, false, t_, n, k, x, k, w, n, y, n);
  }
  // dX = dY . W^T (the simulator's backward-input shape), dW = X^T . dY (backward-weight).
  void linear_backward(const float* x, const float* w, const float* dy, float* dx, float* dw, int n,
                       int k) {
    ops_.sgemm(false, true, t_, k, n, dy, n, w, n, dx, k);
    ops_.sgemm(true, false, k, n, t_, x, k, dy, n, dw, n);
  }

  // Q.K^T -> causal softmax -> P.V per sequence, each a call batched over the heads (head i's
  // Q, K, V and context columns start i d floats further; its probabilities s^2 further); the
  // simulator's attention_scores, softmax and attention_values ops, which it prices batched.
  void attention_forward(LayerActs& a) {
    const int s = c_.seq_len, h = c_.hidden, d = h / c_.heads, heads = c_.heads;
    const float scale = 1.0f / std::sqrt(float(d));
    const long long ss = static_cast<long long>(s) * s;
    for (int b = 0; b < c_.micro_batch; ++b) {
      const float* q = a.qkv.data() + std::size_t(b) * s * 3 * h;
      float* pr = a.probs.data() + std::size_t(b) * heads * ss;
      ops_.sgemm_batched(false, true, s, s, d, q, 3 * h, d, q + h, 3 * h, d, pr, s, ss, heads);
      ops_.causal_softmax_forward(pr, heads, s, scale);
      float* o = a.ctx.data() + std::size_t(b) * s * h;
      ops_.sgemm_batched(false, false, s, d, s, pr, s, ss, q + 2 * h, 3 * h, d, o, h, d, heads);
    }
  }

  void layer_forward(const LayerParams& lp, LayerActs& a, float* out) {
    const int h = c_.hidden, f = c_.ffn_hidden;
    const std::int64_t th = std::int64_t(t_) * h, tf = std::int64_t(t_) * f;
    ops_.layernorm_forward(a.x.data(), P(lp.ln1_g), P(lp.ln1_b), a.a.data(), a.mean1.data(),
                           a.rstd1.data(), t_, h);
    linear_forward(a.a.data(), P(lp.qkv), a.qkv.data(), 3 * h, h);
    attention_forward(a);
    linear_forward(a.ctx.data(), P(lp.out), proj_.data(), h, h);
    ops_.add(a.x.data(), proj_.data(), a.x2.data(), th);
    ops_.layernorm_forward(a.x2.data(), P(lp.ln2_g), P(lp.ln2_b), a.c.data(), a.mean2.data(),
                           a.rstd2.data(), t_, h);
    linear_forward(a.c.data(), P(lp.fc1), a.u.data(), f, h);
    ops_.gelu_forward(a.u.data(), a.g.data(), tf);
    linear_forward(a.g.data(), P(lp.fc2), proj_.data(), h, f);
    ops_.add(a.x2.data(), proj_.data(), out, th);
  }

  void forward() {
    const int h = c_.hidden;
    ops_.embedding_forward(tokens_, P(l_.embed), P(l_.pos), acts_[0].x.data(), c_.seq_len, h);
    for (std::size_t i = 0; i < acts_.size(); ++i) {
      float* out = i + 1 < acts_.size() ? acts_[i + 1].x.data() : xf_.data();
      layer_forward(l_.layers[i], acts_[i], out);
    }
    ops_.layernorm_forward(xf_.data(), P(l_.lnf_g), P(l_.lnf_b), zf_.data(), meanf_.data(),
                           rstdf_.data(), t_, h);
    linear_forward(zf_.data(), P(l_.head), logits_.data(), c_.vocab, h);
    ops_.cross_entropy(logits_.data(), targets_, t_, c_.vocab);
  }

  void attention_backward(LayerActs& a, const float* dctx, float* dqkv) {
    const int s = c_.seq_len, h = c_.hidden, d = h / c_.heads;
    const float scale = 1.0f / std::sqrt(float(d));
    const int heads = c_.heads;
    const long long ss = static_cast<long long>(s) * s;
    float* dp = dp_.data();  // heads x [s x s]
    const auto batched = [&](bool ta, bool tb, int m, int n, int k, const float* x, int ldx,
                             long long sx, const float* y, int ldy, long long sy, float* z, int ldz,
                             long long sz) {
      ops_.sgemm_batched(ta, tb, m, n, k, x, ldx, sx, y, ldy, sy, z, ldz, sz, heads);
    };
    for (int b = 0; b < c_.micro_batch; ++b) {
      const std::size_t qo = std::size_t(b) * s * 3 * h;
      const float* q = a.qkv.data() + qo;
      float* dq = dqkv + qo;
      const float* pr = a.probs.data() + std::size_t(b) * heads * ss;
      const float* dout = dctx + std::size_t(b) * s * h;
      batched(false, true, s, s, d, dout, h, d, q + 2 * h, 3 * h, d, dp, s, ss);   // dP = dO V^T
      batched(true, false, s, d, s, pr, s, ss, dout, h, d, dq + 2 * h, 3 * h, d);  // dV = P^T dO
      ops_.causal_softmax_backward(pr, dp, heads, s, scale);
      batched(false, false, s, d, s, dp, s, ss, q + h, 3 * h, d, dq, 3 * h, d);  // dQ = dS K
      batched(true, false, s, d, s, dp, s, ss, q, 3 * h, d, dq + h, 3 * h, d);   // dK = dS^T Q
    }
  }

  // `dx` holds d loss / d (block output) on entry and d loss / d (block input) on return.
  void layer_backward(const LayerParams& lp, LayerActs& a, float* dx) {
    const int h = c_.hidden, f = c_.ffn_hidden;
    float* dh = dh_.data();
    float* df = df_.data();
    linear_backward(a.g.data(), P(lp.fc2), dx, df, G(lp.fc2), h, f);
    ops_.gelu_backward(a.u.data(), df, df, std::int64_t(t_) * f);
    linear_backward(a.c.data(), P(lp.fc1), df, dh, G(lp.fc1), f, h);
    ops_.layernorm_backward(a.x2.data(), P(lp.ln2_g), a.mean2.data(), a.rstd2.data(), dh, dh,
                            G(lp.ln2_g), G(lp.ln2_b), t_, h);
    ops_.add(dx, dh, dx, std::int64_t(t_) * h);  // residual: d x2
    linear_backward(a.ctx.data(), P(lp.out), dx, dh, G(lp.out), h, h);
    attention_backward(a, dh, dqkv_.data());
    linear_backward(a.a.data(), P(lp.qkv), dqkv_.data(), dh, G(lp.qkv), 3 * h, h);
    ops_.layernorm_backward(a.x.data(), P(lp.ln1_g), a.mean1.data(), a.rstd1.data(), dh, dh,
                            G(lp.ln1_g), G(lp.ln1_b), t_, h);
    ops_.add(dx, dh, dx, std::int64_t(t_) * h);  // residual: d x
  }

  // The gradients the backward pass accumulates into (+=): embeddings and positions, norms.
  void zero_accumulated_grads() {
    const std::size_t h = std::size_t(c_.hidden);
    ops_.zero(G(l_.embed), l_.pos + std::size_t(c_.seq_len) * h - l_.embed);
    for (const auto& lp : l_.layers)
      for (const std::size_t off : {lp.ln1_g, lp.ln1_b, lp.ln2_g, lp.ln2_b}) ops_.zero(G(off), h);
    ops_.zero(G(l_.lnf_g), h);
    ops_.zero(G(l_.lnf_b), h);
  }

  void backward() {
    const int h = c_.hidden;
    zero_accumulated_grads();
    linear_backward(zf_.data(), P(l_.head), logits_.data(), dh_.data(), G(l_.head), c_.vocab, h);
    ops_.layernorm_backward(xf_.data(), P(l_.lnf_g), meanf_.data(), rstdf_.data(), dh_.data(),
                            dx_.data(), G(l_.lnf_g), G(l_.lnf_b), t_, h);
    for (std::size_t i = acts_.size(); i-- > 0;) layer_backward(l_.layers[i], acts_[i], dx_.data());
    ops_.embedding_backward(tokens_, dx_.data(), G(l_.embed), G(l_.pos), c_.seq_len, h);
  }

  CompositeConfig c_;
  Layout l_;
  int t_;
  Ops& ops_;
  Buffer p_, g_, m_, v_;
  std::vector<LayerActs> acts_;
  Buffer xf_, zf_, meanf_, rstdf_, logits_, proj_, dh_, df_, dqkv_, dx_, dp_;
  typename Ops::Tokens tokens_, targets_;
  int steps_ = 0;
};

// The training step as a timing-loop instance: each run is one step, its loss recorded.
template <class Ops>
class StepInstance final : public Instance {
 public:
  // `losses`, `phases` and `checksum` outlive the instance (measure() destroys it before
  // returning).
  StepInstance(const CompositeConfig& c, const Comm& comm, Ops& ops, std::vector<double>& losses,
               std::vector<CompositePhases>& phases, double& checksum)
      : model_(c, comm.rank(), ops),
        comm_(comm),
        losses_(losses),
        phases_(phases),
        checksum_(checksum) {}
  void run(int times) override {
    for (int i = 0; i < times; ++i) {
      CompositePhases p;
      losses_.push_back(model_.step(comm_, p));
      phases_.push_back(p);
    }
  }
  // The final parameters' checksum, taken when measure() releases the instance (untimed). Not
  // while an exception unwinds: after a device hang, the checksum's wait would hold the error
  // for another full deadline.
  ~StepInstance() override {
    if (std::uncaught_exceptions() > 0) {
      checksum_ = std::nan("");
      return;
    }
    try {
      checksum_ = model_.checksum();
    } catch (...) {
      checksum_ = std::nan("");  // a failed copy-out leaves replicas that cannot agree
    }
  }
  StepInstance(const StepInstance&) = delete;
  StepInstance& operator=(const StepInstance&) = delete;
  Verification verify() override { return {true, "checked after the timed steps"}; }

 private:
  Model<Ops> model_;
  const Comm& comm_;
  std::vector<double>& losses_;
  std::vector<CompositePhases>& phases_;
  double& checksum_;
};

// Runs the workload on every rank of `world` in lockstep on `ops`' kernels, timed with `timer`
// (a steady clock: each step waits for its own device work). Throws CallError on a failed
// library call or a cross-rank deadline; std::invalid_argument for a config that cannot run.
template <class Ops>
CompositeResult run_composite_on(const CompositeConfig& config, const Comm& world, Ops& ops,
                                 const char* name, Timer& timer) {
  check_composite_config(config);
  CompositeResult r;
  r.parameters = composite_parameters(config);
  double checksum = 0;
  std::vector<CompositePhases> phases;  // every step run, warm-up included
  Descriptor d;
  d.name = name;
  d.setup = [&] {
    return std::make_unique<StepInstance<Ops>>(config, world, ops, r.losses, phases, checksum);
  };
  const Measurement m = measure(d, timer, world, composite_loop(config));
  r.samples_s = m.samples_s;
  r.step_seconds = m.summary.median_s;
  // The samples are the last steps run (measure(): one step per sample, after the warm-up).
  r.phases = phase_medians(phases, int(m.samples_s.size()), world);
  verify(r, world, checksum);
  return r;
}

}  // namespace shardsim::kernels::composite_model
