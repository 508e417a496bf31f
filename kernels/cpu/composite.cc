// The composite training step (composite.h): parameters in one flat buffer (so one all-reduce and
// one Adam pass cover them), activations kept per layer for the backward pass.
#include "kernels/cpu/composite.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "kernels/common/descriptor.h"
#include "kernels/common/hash.h"
#include "kernels/common/stats.h"
#include "kernels/cpu/composite_ops.h"

namespace shardsim::kernels::cpu {
namespace {

using composite::Vec;
namespace ops = composite;

// Offsets of one block's parameters in the flat buffer.
struct LayerParams {
  std::size_t ln1_g, ln1_b, qkv, out, ln2_g, ln2_b, fc1, fc2;
};

struct Layout {
  std::size_t embed = 0, pos = 0, lnf_g = 0, lnf_b = 0, head = 0, total = 0;
  std::vector<LayerParams> layers;
};

Layout make_layout(const CompositeConfig& c) {
  const std::size_t h = std::size_t(c.hidden), f = std::size_t(c.ffn_hidden);
  std::size_t at = 0;
  auto take = [&at](std::size_t n) { return std::exchange(at, at + n); };
  Layout l;
  l.embed = take(std::size_t(c.vocab) * h);
  l.pos = take(std::size_t(c.seq_len) * h);
  for (int i = 0; i < c.layers; ++i)
    l.layers.push_back({take(h), take(h), take(h * 3 * h), take(h * h), take(h), take(h),
                        take(h * f), take(f * h)});
  l.lnf_g = take(h);
  l.lnf_b = take(h);
  l.head = take(h * std::size_t(c.vocab));
  l.total = at;
  return l;
}

// Activations one block keeps for its backward pass.
struct LayerActs {
  Vec x, a, mean1, rstd1, qkv, probs, ctx, x2, c, mean2, rstd2, u, g;
};

void check_config(const CompositeConfig& c) {
  auto need = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("composite workload: ") + what);
  };
  need(c.layers >= 1 && c.hidden >= 8 && c.heads >= 1 && c.ffn_hidden >= 1, "sizes must be >= 1");
  need(c.hidden % c.heads == 0, "hidden must be a multiple of heads");
  need(c.vocab >= 2 && c.seq_len >= 2 && c.micro_batch >= 1, "vocab, seq_len >= 2");
  need(c.warmup_steps >= 0 && c.timed_steps >= 1, "timed_steps must be >= 1");
}

class Model {
 public:
  Model(const CompositeConfig& c, int rank)
      : c_(c),
        l_(make_layout(c)),
        t_(c.seq_len * c.micro_batch),
        p_(l_.total),
        g_(l_.total),
        m_(l_.total, 0.0f),
        v_(l_.total, 0.0f),
        acts_(std::size_t(c.layers)) {
    init_params();
    for (int i = 0; i < t_; ++i) {  // a fixed batch per rank; the target is the next token
      tokens_.push_back(std::int32_t(mix64(std::uint64_t(i) ^ mix64(rank + 7)) % c.vocab));
      targets_.push_back(std::int32_t(mix64(std::uint64_t(i + 1) ^ mix64(rank + 7)) % c.vocab));
    }
    for (auto& a : acts_) allocate(a);
    xf_.resize(std::size_t(t_) * c.hidden);
    zf_ = xf_;
    meanf_.resize(std::size_t(t_));
    rstdf_ = meanf_;
    logits_.resize(std::size_t(t_) * c.vocab);
  }

  // One training step; returns the loss before the update and the seconds of its phases.
  double step(const Comm& comm, CompositePhases& phases) {
    using Clock = std::chrono::steady_clock;
    const auto seconds = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double>(b - a).count();
    };
    const auto start = Clock::now();
    const double loss = forward();
    backward();
    const auto computed = Clock::now();
    check_mpi(
        MPI_Allreduce(MPI_IN_PLACE, g_.data(), int(g_.size()), MPI_FLOAT, MPI_SUM, comm.handle()),
        "MPI_Allreduce");
    const auto reduced = Clock::now();
    ops::adam(p_, g_, m_, v_, ++steps_, 1.0f / float(comm.size()), {});
    const auto updated = Clock::now();
    phases = {seconds(start, computed), seconds(computed, reduced), seconds(reduced, updated)};
    return loss;
  }

  [[nodiscard]] double checksum() const {
    double s = 0;
    for (std::size_t i = 0; i < p_.size(); ++i) s += double(p_[i]) * double(1 + i % 7);
    return s;
  }

 private:
  // Weights uniform in +-0.02 sqrt(3) (std 0.02, GPT-2's init); norm gains 1, shifts 0.
  void init_params() {
    const float a = 0.02f * std::sqrt(3.0f);
    for (std::size_t i = 0; i < p_.size(); ++i) p_[i] = a * (2.0f * uniform01(i, 99) - 1.0f);
    const std::size_t h = std::size_t(c_.hidden);
    auto set = [&](std::size_t off, float v) { std::fill_n(p_.begin() + long(off), h, v); };
    for (const auto& lp : l_.layers) {
      set(lp.ln1_g, 1.0f), set(lp.ln1_b, 0.0f), set(lp.ln2_g, 1.0f), set(lp.ln2_b, 0.0f);
    }
    set(l_.lnf_g, 1.0f), set(l_.lnf_b, 0.0f);
  }

  void allocate(LayerActs& a) const {
    const std::size_t th = std::size_t(t_) * c_.hidden, tf = std::size_t(t_) * c_.ffn_hidden;
    a.x = a.a = a.ctx = a.x2 = a.c = Vec(th);
    a.mean1 = a.rstd1 = a.mean2 = a.rstd2 = Vec(std::size_t(t_));
    a.qkv = Vec(3 * th);
    a.probs = Vec(std::size_t(c_.micro_batch) * c_.heads * c_.seq_len * c_.seq_len);
    a.u = a.g = Vec(tf);
  }

  float* P(std::size_t off) { return p_.data() + off; }
  float* G(std::size_t off) { return g_.data() + off; }

  // Q.K^T -> causal softmax -> P.V per (sequence, head); the simulator's attention_scores,
  // softmax and attention_values ops.
  void attention_forward(LayerActs& a) {
    const int s = c_.seq_len, h = c_.hidden, d = h / c_.heads;
    const float scale = 1.0f / std::sqrt(float(d));
    for (int b = 0; b < c_.micro_batch; ++b)
      for (int hd = 0; hd < c_.heads; ++hd) {
        const float* q = a.qkv.data() + std::size_t(b) * s * 3 * h + std::size_t(hd) * d;
        float* pr = a.probs.data() + (std::size_t(b) * c_.heads + hd) * s * s;
        ops::sgemm(false, true, s, s, d, q, 3 * h, q + h, 3 * h, pr, s);
        ops::causal_softmax_forward(pr, s, scale);
        float* o = a.ctx.data() + std::size_t(b) * s * h + std::size_t(hd) * d;
        ops::sgemm(false, false, s, d, s, pr, s, q + 2 * h, 3 * h, o, h);
      }
  }

  void layer_forward(const LayerParams& lp, LayerActs& a, float* out) {
    const int h = c_.hidden, f = c_.ffn_hidden;
    const std::int64_t th = std::int64_t(t_) * h, tf = std::int64_t(t_) * f;
    ops::layernorm_forward(a.x.data(), P(lp.ln1_g), P(lp.ln1_b), a.a.data(), a.mean1.data(),
                           a.rstd1.data(), t_, h);
    ops::linear_forward(a.a.data(), P(lp.qkv), a.qkv.data(), t_, 3 * h, h);
    attention_forward(a);
    ops::linear_forward(a.ctx.data(), P(lp.out), scratch_h(), t_, h, h);
    ops::add(a.x.data(), scratch_h(), a.x2.data(), th);
    ops::layernorm_forward(a.x2.data(), P(lp.ln2_g), P(lp.ln2_b), a.c.data(), a.mean2.data(),
                           a.rstd2.data(), t_, h);
    ops::linear_forward(a.c.data(), P(lp.fc1), a.u.data(), t_, f, h);
    ops::gelu_forward(a.u.data(), a.g.data(), tf);
    ops::linear_forward(a.g.data(), P(lp.fc2), scratch_h(), t_, h, f);
    ops::add(a.x2.data(), scratch_h(), out, th);
  }

  double forward() {
    const int h = c_.hidden;
    ops::embedding_forward(tokens_, P(l_.embed), P(l_.pos), acts_[0].x.data(), c_.seq_len, h);
    for (std::size_t i = 0; i < acts_.size(); ++i) {
      float* out = i + 1 < acts_.size() ? acts_[i + 1].x.data() : xf_.data();
      layer_forward(l_.layers[i], acts_[i], out);
    }
    ops::layernorm_forward(xf_.data(), P(l_.lnf_g), P(l_.lnf_b), zf_.data(), meanf_.data(),
                           rstdf_.data(), t_, h);
    ops::linear_forward(zf_.data(), P(l_.head), logits_.data(), t_, c_.vocab, h);
    return ops::cross_entropy(logits_.data(), targets_, t_, c_.vocab);
  }

  void attention_backward(LayerActs& a, const float* dctx, float* dqkv) {
    const int s = c_.seq_len, h = c_.hidden, d = h / c_.heads;
    const float scale = 1.0f / std::sqrt(float(d));
    Vec& dp = scores_scratch_;
    dp.resize(std::size_t(s) * s);
    for (int b = 0; b < c_.micro_batch; ++b)
      for (int hd = 0; hd < c_.heads; ++hd) {
        const std::size_t qo = std::size_t(b) * s * 3 * h + std::size_t(hd) * d;
        const float* q = a.qkv.data() + qo;
        float* dq = dqkv + qo;
        const float* pr = a.probs.data() + (std::size_t(b) * c_.heads + hd) * s * s;
        const float* dout = dctx + std::size_t(b) * s * h + std::size_t(hd) * d;
        ops::sgemm(false, true, s, s, d, dout, h, q + 2 * h, 3 * h, dp.data(), s);  // dP = dO V^T
        ops::sgemm(true, false, s, d, s, pr, s, dout, h, dq + 2 * h, 3 * h);        // dV = P^T dO
        ops::causal_softmax_backward(pr, dp.data(), s, scale);
        ops::sgemm(false, false, s, d, s, dp.data(), s, q + h, 3 * h, dq, 3 * h);  // dQ = dS K
        ops::sgemm(true, false, s, d, s, dp.data(), s, q, 3 * h, dq + h, 3 * h);   // dK = dS^T Q
      }
  }

  // `dx` holds d loss / d (block output) on entry and d loss / d (block input) on return.
  void layer_backward(const LayerParams& lp, LayerActs& a, Vec& dx) {
    const int h = c_.hidden, f = c_.ffn_hidden;
    Vec& dh = dh_;
    Vec& df = df_;
    ops::linear_backward(a.g.data(), P(lp.fc2), dx.data(), df.data(), G(lp.fc2), t_, h, f);
    ops::gelu_backward(a.u.data(), df.data(), df.data(), std::int64_t(t_) * f);
    ops::linear_backward(a.c.data(), P(lp.fc1), df.data(), dh.data(), G(lp.fc1), t_, f, h);
    ops::layernorm_backward(a.x2.data(), P(lp.ln2_g), a.mean2.data(), a.rstd2.data(), dh.data(),
                            dh.data(), G(lp.ln2_g), G(lp.ln2_b), t_, h);
    ops::add(dx.data(), dh.data(), dx.data(), std::int64_t(t_) * h);  // residual: d x2
    ops::linear_backward(a.ctx.data(), P(lp.out), dx.data(), dh.data(), G(lp.out), t_, h, h);
    attention_backward(a, dh.data(), dqkv_.data());
    ops::linear_backward(a.a.data(), P(lp.qkv), dqkv_.data(), dh.data(), G(lp.qkv), t_, 3 * h, h);
    ops::layernorm_backward(a.x.data(), P(lp.ln1_g), a.mean1.data(), a.rstd1.data(), dh.data(),
                            dh.data(), G(lp.ln1_g), G(lp.ln1_b), t_, h);
    ops::add(dx.data(), dh.data(), dx.data(), std::int64_t(t_) * h);  // residual: d x
  }

  void zero_accumulated_grads() {
    const std::size_t h = std::size_t(c_.hidden);
    std::fill(g_.begin() + long(l_.embed), g_.begin() + long(l_.pos + c_.seq_len * h), 0.0f);
    auto zero = [&](std::size_t off) { std::fill_n(g_.begin() + long(off), h, 0.0f); };
    for (const auto& lp : l_.layers) zero(lp.ln1_g), zero(lp.ln1_b), zero(lp.ln2_g), zero(lp.ln2_b);
    zero(l_.lnf_g), zero(l_.lnf_b);
  }

  void backward() {
    const int h = c_.hidden;
    dh_.resize(std::size_t(t_) * h);
    df_.resize(std::size_t(t_) * c_.ffn_hidden);
    dqkv_.resize(std::size_t(t_) * 3 * h);
    dx_.resize(std::size_t(t_) * h);
    zero_accumulated_grads();
    ops::linear_backward(zf_.data(), P(l_.head), logits_.data(), dh_.data(), G(l_.head), t_,
                         c_.vocab, h);
    ops::layernorm_backward(xf_.data(), P(l_.lnf_g), meanf_.data(), rstdf_.data(), dh_.data(),
                            dx_.data(), G(l_.lnf_g), G(l_.lnf_b), t_, h);
    for (std::size_t i = acts_.size(); i-- > 0;) layer_backward(l_.layers[i], acts_[i], dx_);
    ops::embedding_backward(tokens_, dx_.data(), G(l_.embed), G(l_.pos), c_.seq_len, h);
  }

  float* scratch_h() {
    proj_.resize(std::size_t(t_) * c_.hidden);
    return proj_.data();
  }

  CompositeConfig c_;
  Layout l_;
  int t_;
  Vec p_, g_, m_, v_;
  std::vector<LayerActs> acts_;
  Vec xf_, zf_, meanf_, rstdf_, logits_, proj_, dh_, df_, dqkv_, dx_, scores_scratch_;
  std::vector<std::int32_t> tokens_, targets_;
  int steps_ = 0;
};

// The training step as a timing-loop instance: each run is one step, its loss recorded.
class StepInstance final : public Instance {
 public:
  // `losses` and `checksum` outlive the instance (measure() destroys it before returning).
  StepInstance(const CompositeConfig& c, const Comm& comm, std::vector<double>& losses,
               std::vector<CompositePhases>& phases, double& checksum)
      : model_(c, comm.rank()),
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
  // The final parameters' checksum, taken when measure() releases the instance (untimed).
  ~StepInstance() override { checksum_ = model_.checksum(); }
  StepInstance(const StepInstance&) = delete;
  StepInstance& operator=(const StepInstance&) = delete;
  Verification verify() override { return {true, "checked after the timed steps"}; }

 private:
  Model model_;
  const Comm& comm_;
  std::vector<double>& losses_;
  std::vector<CompositePhases>& phases_;
  double& checksum_;
};

// Per phase, the median over the last `timed` steps of the maximum over ranks (collective).
CompositePhases phase_medians(const std::vector<CompositePhases>& steps, int timed,
                              const Comm& comm) {
  const std::size_t n = std::min(steps.size(), std::size_t(timed));
  std::vector<double> fb, ar, opt;
  for (std::size_t i = steps.size() - n; i < steps.size(); ++i) {
    fb.push_back(comm.max(steps[i].forward_backward_s));
    ar.push_back(comm.max(steps[i].grad_allreduce_s));
    opt.push_back(comm.max(steps[i].optimizer_s));
  }
  return {summarize(fb).median_s, summarize(ar).median_s, summarize(opt).median_s};
}

// Loss fell on every rank; parameters agree across ranks to 1e-9 relative.
void verify(CompositeResult& r, const Comm& comm, double checksum) {
  const bool fell = r.losses.size() >= 2 && r.losses.back() < r.losses.front();
  const bool all_fell = comm.all(fell);
  const double hi = comm.max(checksum), lo = -comm.max(-checksum);
  const bool agree = std::fabs(hi - lo) <= 1e-9 * std::fabs(hi) + 1e-30;
  r.verified = all_fell && agree;
  std::ostringstream s;
  s << "loss " << r.losses.front() << " -> " << r.losses.back() << " over " << r.losses.size()
    << " steps on rank " << comm.rank() << (all_fell ? " (fell on every rank)" : " (did NOT fall)")
    << "; parameter checksums across ranks " << (agree ? "agree" : "DIFFER") << " (" << lo << " .. "
    << hi << ")";
  r.verification = s.str();
}

}  // namespace

double composite_parameters(const CompositeConfig& c) {
  return double(make_layout(c).total);
}

CompositeResult run_composite(const CompositeConfig& config, const Comm& world) {
  check_config(config);
  CompositeResult r;
  r.parameters = composite_parameters(config);
  double checksum = 0;
  std::vector<CompositePhases> phases;  // every step run, warm-up included
  Descriptor d;
  d.name = "composite/step";
  d.setup = [&] {
    return std::make_unique<StepInstance>(config, world, r.losses, phases, checksum);
  };
  // One step per sample (min_sample_s 0), exactly timed_steps samples after warm-up.
  LoopConfig loop;
  loop.warmup_runs = config.warmup_steps;
  loop.min_repetitions = loop.max_repetitions = config.timed_steps;
  loop.min_total_s = 0;
  loop.min_sample_s = 0;
  loop.max_runs_per_sample = 1;
  SteadyClockTimer timer;
  const Measurement m = measure(d, timer, world, loop);
  r.samples_s = m.samples_s;
  r.step_seconds = m.summary.median_s;
  // The samples are the last steps run (measure(): one step per sample, after the warm-up).
  r.phases = phase_medians(phases, int(m.samples_s.size()), world);
  verify(r, world, checksum);
  return r;
}

}  // namespace shardsim::kernels::cpu
