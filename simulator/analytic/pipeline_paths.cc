#include "simulator/analytic/pipeline_paths.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace shardsim {

Zero3Item zero3_item_exposed(const std::vector<Zero3Unit>& units, std::size_t depth, bool gathers,
                             bool reduces, double slowdown, double lead, bool serial) {
  const std::size_t n = units.size();
  serial = serial && reduces;
  std::vector<double> gather_end(n, 0), compute_end(n, 0);
  std::vector<double> reduce_end(serial ? n : 0, 0);  // a serial item's compute waits for them
  // the stream's collectives in order, [start, end): disjoint and sorted, one stream
  std::vector<std::pair<double, double>> busy;
  if (lead > 0) busy.emplace_back(0.0, lead);
  std::size_t computed = 0, gathered = gathers ? 0 : n, next_busy = 0;
  double compute = 0, stream = lead, work = 0, copied = 0;
  auto run_on_stream = [&](double start, double seconds) {
    stream = start + seconds;
    if (seconds > 0) busy.emplace_back(start, stream);
  };
  // Compute of `seconds` from `start`, at 1 / (1 + slowdown) of its speed while a collective runs
  // (contention.h, instant by instant as des/step_sim.cc). Every collective it can overlap is
  // known: a later one waits for this compute or queues behind one that does.
  auto finish = [&](double start, double seconds) {
    double t = start, left = seconds;
    while (next_busy < busy.size() && busy[next_busy].second <= t) ++next_busy;
    for (std::size_t i = next_busy; i < busy.size() && left > 0; ++i) {
      const auto [a, b] = busy[i];
      if (a > t) {
        if (left <= a - t) return t + left;
        left -= a - t;
        t = a;
      }
      const double slowed = (b - t) / (1 + slowdown);  // the work done by b
      if (left <= slowed) return t + left * (1 + slowdown);
      left -= slowed;
      t = b;
    }
    return t + left;
  };
  // Parameter offload: unit j's host-to-device copy runs [copy_end[j - 1], copy_end[j]).
  // (Left empty without offload: no gap is charged to a copy, and the analytic model's hot
  // loop allocates nothing for it.)
  std::vector<double> copy_end;
  if (std::ranges::any_of(units, [](const Zero3Unit& u) { return u.h2d > 0; })) {
    copy_end.resize(n);
    for (std::size_t j = 0; j < n; ++j) copy_end[j] = (j > 0 ? copy_end[j - 1] : 0) + units[j].h2d;
  }
  double offload = 0;
  std::size_t seen_busy = 0, seen_copy = 0;
  struct Span {
    double start, end;
    bool copy;
  };
  std::vector<Span> spans;
  // The compute stream idles over [a, b): the part the DES charges to a copy. It charges the
  // side-stream tasks running in the gap in the order of their starts clipped to a, the stream's
  // collectives before the copies on a tie (so whatever runs at a is taken first, a collective
  // before a copy), each instant once (des/step_sim.cc charge_side_streams). Gaps come in time
  // order, so both cursors only advance.
  auto charge_gap = [&](double a, double b) {
    while (seen_busy < busy.size() && busy[seen_busy].second <= a) ++seen_busy;
    while (seen_copy < n && copy_end[seen_copy] <= a) ++seen_copy;
    spans.clear();
    for (std::size_t i = seen_busy; i < busy.size() && busy[i].first < b; ++i)
      spans.push_back({std::max(a, busy[i].first), std::min(b, busy[i].second), false});
    for (std::size_t j = seen_copy; j < n && (j > 0 ? copy_end[j - 1] : 0.0) < b; ++j)
      if (copy_end[j] > (j > 0 ? copy_end[j - 1] : 0.0))
        spans.push_back(
            {std::max(a, j > 0 ? copy_end[j - 1] : 0.0), std::min(b, copy_end[j]), true});
    std::ranges::stable_sort(spans, {}, &Span::start);
    double cursor = a;
    for (const Span& sp : spans) {
      const double from = std::max(cursor, sp.start);
      if (sp.end <= from) continue;
      if (sp.copy) offload += sp.end - from;
      cursor = sp.end;
    }
  };
  auto compute_through = [&](std::size_t k) {  // the compute ends of units 0..k
    for (; computed <= k; ++computed) {
      double start = std::max(compute, gathers ? gather_end[computed] : 0.0);
      if (serial && computed > 0) start = std::max(start, reduce_end[computed - 1]);
      if (start > compute && !copy_end.empty() && copy_end[n - 1] > compute)
        charge_gap(compute, start);
      compute =
          slowdown > 0 ? finish(start, units[computed].compute) : start + units[computed].compute;
      compute_end[computed] = compute;
      work += units[computed].compute;
    }
    return compute_end[k];
  };
  auto gather_through = [&](std::size_t k) {  // the gathers of units 0..k
    for (; gathered < n && gathered <= k; ++gathered) {
      if (gathered > depth) stream = std::max(stream, compute_through(gathered - depth - 1));
      copied += units[gathered].h2d;
      run_on_stream(std::max(stream, copied), units[gathered].gather);
      gather_end[gathered] = stream;
    }
  };
  for (std::size_t k = 0; k < n; ++k) {
    gather_through(k + depth);
    if (reduces) run_on_stream(std::max(stream, compute_through(k)), units[k].reduce);
    if (serial) reduce_end[k] = stream;
  }
  if (n > 0) compute_through(n - 1);
  if (serial) return {std::max(compute, stream) - work, 0, offload};  // ends after its last
  return {std::max(compute, stream) - work, std::max(0.0, stream - compute), offload};
}

namespace {

// When stage k's first backward can start, from the start of its first forward, under the 1F1B
// and ZB-H1 programs: a later stage j runs its first backward after its forward of micro-batch
// x_j = min(p - j - 1, m - 1) (its warm-up), which the stages k..j deliver as a flow line of equal
// items, sum_{k<=l<=j} f_l + x_j max_{k<=i<=j} f_i plus a transfer per boundary; then the
// backward chain from j back to k. The largest over j (j = p - 1 gives f_k + D).
double first_backward_arrival(const std::vector<double>& f, const std::vector<double>& chain,
                              std::size_t k, double m, double t) {
  const std::size_t p = f.size();
  double forwards = f[k], slowest = f[k], back = 0, arrival = 0;
  for (std::size_t j = k + 1; j < p; ++j) {
    forwards += f[j];
    slowest = std::max(slowest, f[j]);
    back += chain[j];
    const double x = std::min(double(p - j - 1), m - 1), hops = double(j - k);
    arrival = std::max(arrival, forwards + x * slowest + back + 2 * hops * t);
  }
  return arrival;
}

}  // namespace

double one_f_one_b_path(const std::vector<double>& f, const std::vector<double>& b,
                        const std::vector<double>& chain, const std::vector<double>& last,
                        const std::vector<double>& own, std::size_t k, double m, double t) {
  const std::size_t p = f.size();
  // U (the earlier stages' fill and drain) and D, transfers first
  double fill = double(k) * t, drain = double(k) * t, down = 2 * double(p - 1 - k) * t;
  for (std::size_t i = 0; i < k; ++i) {
    fill += f[i];
    drain += last[i];
  }
  // The drain runs from stage k's last compute through each earlier stage's last backward and a
  // transfer; stage i's own trailing reduce-scatters run after its last compute, and the step
  // ends with the latest (until 2026-11-29 it ended at stage 0's last compute: 21.5 s against
  // the DES's 24 s in tests/des/zero3_test.cc Zero3Prefetch.TheDrainEndsWithTheEarlierStagesTrail).
  double drained = 0;
  for (std::size_t i = k; i-- > 0;) {
    drained += last[i] + t;
    if (own[i] > 0) drain = std::max(drain, drained + own[i]);
  }
  for (std::size_t i = k + 1; i < p; ++i) down += f[i] + chain[i];
  const double a = std::min(double(p - k), m), warm = a - 1;
  const double first = std::max(0.0, first_backward_arrival(f, chain, k, m, t) - a * f[k]);
  double wait = 0;
  if (m <= a) {
    wait = std::max(first, down - warm * b[k]);
  } else {
    const double steady = std::max(0.0, std::floor((m - 1) / a) - 1);
    wait = first + std::max(0.0, down - warm * b[k]) +
           steady * std::max(0.0, down - warm * (f[k] + b[k]));
  }
  // the drain starts at the stage's last compute, beside its own trailing reduce-scatters
  return fill + m * (f[k] + b[k]) + wait - (b[k] - last[k]) + std::max(own[k], drain);
}

double zb_h1_path(const std::vector<double>& f, const std::vector<double>& b,
                  const std::vector<double>& w, const std::vector<double>& chain, std::size_t k,
                  double m, double t) {
  const std::size_t p = f.size();
  double fill = double(k) * t, down = 2 * double(p - 1 - k) * t;
  for (std::size_t i = 0; i < k; ++i) fill += f[i];
  for (std::size_t i = k + 1; i < p; ++i) down += f[i] + chain[i];
  const double a = std::min(double(p - k), m), warm = a - 1;
  const double first = std::max(0.0, first_backward_arrival(f, chain, k, m, t) - a * f[k]);
  double wait = 0;
  if (m <= a) {
    const double between = (m - 1) * b[k] + std::max(0.0, m - 1 - double(k)) * w[k];
    wait = std::max({first, down - between, 0.0});
  } else {
    const double steady = std::max(0.0, std::floor((m - 1) / a) - 1);
    wait = first + std::max(0.0, down - warm * (b[k] + w[k])) +
           steady * std::max(0.0, down - warm * (f[k] + b[k] + w[k]));
  }
  // after its last backward: its own last weight passes against each earlier stage's drain
  const double own = std::min(double(k) + 1, m) * w[k];
  double drain = own, chain_up = 0;
  for (std::size_t i = k; i-- > 0;) {
    chain_up += chain[i] + t;
    drain = std::max(drain, chain_up + std::min(double(i) + 1, m) * w[i]);
  }
  return fill + m * (f[k] + b[k] + w[k]) + wait - own + drain;
}

double zb_h2_span(const std::vector<double>& f, const std::vector<double>& b,
                  const std::vector<double>& w, const std::vector<double>& chain, std::size_t k,
                  double m, double t) {
  const std::size_t p = f.size();
  double down = 2 * double(p - 1 - k) * t;
  for (std::size_t i = k + 1; i < p; ++i) down += f[i] + chain[i];
  const double a = std::min(2 * double(p - k) - 1, m), warm = a - 1;
  double wait = 0;
  if (m <= a) {
    wait = std::max(0.0, down - (m - 1) * std::min(f[k], b[k] + w[k]));
  } else {
    const double steady = std::max(0.0, std::floor((m - 1) / a) - 1);
    wait = std::max(0.0, down - warm * f[k]) + std::max(0.0, down - warm * (b[k] + w[k])) +
           steady * std::max(0.0, down - warm * (f[k] + b[k] + w[k]));
  }
  // a later stage j paces this one: the forward from k to j, j's m forward and backward-input
  // items, the backward chain back to k, and k's last weight pass
  double paced = 0, around = 0;
  for (std::size_t j = k + 1; j < p; ++j) {
    around += f[j - 1] + chain[j - 1] + 2 * t;
    paced = std::max(paced, around + m * (f[j] + b[j]) + w[k]);
  }
  // Qi et al.'s bubble once m >= 2p - 1: each other stage's max(0, f + b - 2w), weighted by its
  // work relative to this stage's
  double steady_bubble = 0;
  if (m >= 2.0 * double(p) - 1)
    for (std::size_t i = 0; i < p; ++i)
      if (i != k)
        steady_bubble += std::max(0.0, f[i] + b[i] - 2 * w[i]) *
                         std::min(1.0, (f[i] + b[i] + w[i]) / (f[k] + b[k] + w[k]));
  const double own = m * (f[k] + b[k] + w[k]);
  return std::max({own + wait, own + steady_bubble, paced});
}

}  // namespace shardsim
