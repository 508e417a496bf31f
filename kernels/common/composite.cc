// The backend-independent parts of the composite workload (composite.h, composite_model.h).
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "kernels/common/composite_model.h"

namespace shardsim::kernels {

namespace composite_model {

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

std::vector<float> initial_parameters(const CompositeConfig& c, const Layout& l) {
  std::vector<float> p(l.total);
  const float a = 0.02f * std::sqrt(3.0f);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = a * (2.0f * uniform01(i, 99) - 1.0f);
  const std::size_t h = std::size_t(c.hidden);
  auto set = [&](std::size_t off, float v) { std::fill_n(p.begin() + long(off), h, v); };
  for (const auto& lp : l.layers) {
    set(lp.ln1_g, 1.0f), set(lp.ln1_b, 0.0f), set(lp.ln2_g, 1.0f), set(lp.ln2_b, 0.0f);
  }
  set(l.lnf_g, 1.0f), set(l.lnf_b, 0.0f);
  return p;
}

void rank_batch(const CompositeConfig& c, int rank, std::vector<std::int32_t>& tokens,
                std::vector<std::int32_t>& targets) {
  const int t = c.seq_len * c.micro_batch;
  tokens.clear();
  targets.clear();
  for (int i = 0; i < t; ++i) {  // a fixed batch per rank; the target is the next token
    tokens.push_back(std::int32_t(mix64(std::uint64_t(i) ^ mix64(rank + 7)) % c.vocab));
    targets.push_back(std::int32_t(mix64(std::uint64_t(i + 1) ^ mix64(rank + 7)) % c.vocab));
  }
}

double parameter_checksum(const std::vector<float>& p) {
  double s = 0;
  for (std::size_t i = 0; i < p.size(); ++i) s += double(p[i]) * double(1 + i % 7);
  return s;
}

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

void verify(CompositeResult& r, const Comm& comm, double checksum) {
  const bool fell = r.losses.size() >= 2 && r.losses.back() < r.losses.front();
  const bool all_fell = comm.all(fell);
  const double hi = comm.max(checksum), lo = -comm.max(-checksum);
  const bool agree =
      std::isfinite(hi) && std::isfinite(lo) && std::fabs(hi - lo) <= 1e-9 * std::fabs(hi) + 1e-30;
  r.verified = all_fell && agree;
  std::ostringstream s;
  s << "loss " << r.losses.front() << " -> " << r.losses.back() << " over " << r.losses.size()
    << " steps on rank " << comm.rank() << (all_fell ? " (fell on every rank)" : " (did NOT fall)")
    << "; parameter checksums across ranks " << (agree ? "agree" : "DIFFER") << " (" << lo << " .. "
    << hi << ")";
  r.verification = s.str();
}

LoopConfig composite_loop(const CompositeConfig& c) {
  // One step per sample (min_sample_s 0), exactly timed_steps samples after warm-up.
  LoopConfig loop;
  loop.warmup_runs = c.warmup_steps;
  loop.min_repetitions = loop.max_repetitions = c.timed_steps;
  loop.min_total_s = 0;
  loop.min_sample_s = 0;
  loop.max_runs_per_sample = 1;
  return loop;
}

}  // namespace composite_model

double composite_parameters(const CompositeConfig& c) {
  return double(composite_model::make_layout(c).total);
}

void check_composite_config(const CompositeConfig& c) {
  auto need = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("composite workload: ") + what);
  };
  need(c.layers >= 1 && c.hidden >= 8 && c.heads >= 1 && c.ffn_hidden >= 1, "sizes must be >= 1");
  need(c.hidden % c.heads == 0, "hidden must be a multiple of heads");
  need(c.vocab >= 2 && c.seq_len >= 2 && c.micro_batch >= 1, "vocab, seq_len >= 2");
  need(c.warmup_steps >= 0 && c.timed_steps >= 1, "timed_steps must be >= 1");
}

}  // namespace shardsim::kernels
