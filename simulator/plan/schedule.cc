#include "simulator/plan/schedule.h"

#include <algorithm>
#include <cmath>

namespace shardsim {

std::int64_t warmup_forwards(Schedule s, int i, int p, int v, std::int64_t total) {
  std::int64_t w = 0;
  switch (s) {
    case Schedule::kGpipe:
      w = total;
      break;
    case Schedule::kInterleaved:
      w = 2 * std::int64_t(p - i - 1) + std::int64_t(v - 1) * p;
      break;
    default:
      w = p - i - 1;
      break;
  }
  return std::min(w, total);
}

std::vector<ProgramItem> stage_program(Schedule schedule, int stage, int pp, int vpp,
                                       std::int64_t micro_batches, std::size_t max_items) {
  const ScheduleTraits& facts = schedule_traits(schedule);
  if (facts.greedy) return {};
  const std::int64_t total = micro_batches * vpp;
  const std::int64_t warmup = warmup_forwards(schedule, stage, pp, vpp, total);
  const bool zb = facts.split_weight_grad;
  std::vector<ProgramItem> out;
  out.reserve(std::min(std::size_t(total) * (zb ? 3 : 2), max_items));
  std::int64_t next_w = 0;
  auto full = [&] { return out.size() >= max_items; };
  auto backward = [&](std::int64_t k) {
    out.push_back({Pass::kBackwardInput, k});
    if (zb && k >= stage) out.push_back({Pass::kBackwardWeight, next_w++});
  };
  for (std::int64_t k = 0; k < warmup && !full(); ++k) out.push_back({Pass::kForward, k});
  for (std::int64_t k = 0; k < total - warmup && !full(); ++k) {
    out.push_back({Pass::kForward, warmup + k});
    backward(k);
  }
  for (std::int64_t k = total - warmup; k < total && !full(); ++k) backward(k);
  while (zb && next_w < total && !full()) out.push_back({Pass::kBackwardWeight, next_w++});
  if (out.size() > max_items) out.resize(max_items);
  return out;
}

std::pair<int, std::int64_t> order_position(int stage, std::int64_t k, bool backward, int pp,
                                            int vpp) {
  if (vpp == 1) return {stage, k};
  const std::int64_t span = std::int64_t(pp) * vpp;
  const std::int64_t group = k / span, r = k % span;
  const int chunk = int(backward ? vpp - 1 - r / pp : r / pp);
  return {chunk * pp + stage, group * pp + r % pp};
}

namespace {

// Entries among the first n of a stage's forward (backward) order that run chunk position `c`:
// the order takes p consecutive entries per chunk, cycling through the v chunks (order_position);
// the backward order runs chunk v - 1 - c at position c.
std::int64_t chunk_entries(std::int64_t n, int c, int pp, int vpp) {
  const std::int64_t span = std::int64_t(pp) * vpp;
  return n / span * pp + std::clamp<std::int64_t>(n % span - std::int64_t(c) * pp, 0, pp);
}

// True when every chunk's bytes is a positive integer and m*v micro-batches of all chunks stay
// below 2^53: then each of the walk's partial sums is an exact integer, its peak a property of
// the live counts alone (no rounding can tie-break differently).
bool exact_positive(const std::vector<double>& bytes, std::int64_t total) {
  double sum = 0;
  for (double b : bytes) {
    if (!(b > 0) || b != std::floor(b)) return false;
    sum += b;
  }
  return sum * double(total) < 9007199254740992.0;
}

// The walk below in closed form, for schedules whose program is W forwards, then pairs of one
// forward and one backward, then the remaining backwards (GPipe aside, every non-ZB schedule),
// with exact positive bytes. After the steady state's k-th forward the live bytes are
//   g(k) = sum_c b_c (F_c(W + k + 1) - B_c(k))
// (F_c, B_c: chunk_entries of the forward and backward orders). Warm-up states lie below g(0),
// each backward lowers the bytes, so the first maximum of the walk is the first maximum of g over
// k in [0, m v - W). g(k + 1) - g(k) = b[chunk_f(W + k + 1)] - b[chunk_b(k)] is periodic in pv
// and sums to 0 over a period (each chunk occurs p times in either order), so g is periodic and
// its first maximum lies in k < pv. The increment is constant between the positions where either
// chunk changes (k = 0 or -(W + 1) modulo p): on such a run g is monotone, so the first maximum
// sits at a run start or at the last k. Those O(v) positions are evaluated in increasing order.
std::vector<std::int64_t> fold_pairs_peak(std::int64_t warmup, int pp, int vpp, std::int64_t total,
                                          const std::vector<double>& bytes) {
  std::vector<std::int64_t> live(std::size_t(vpp), 0);
  auto fill = [&](std::int64_t forwards, std::int64_t backwards) {
    double sum = 0;
    for (int c = 0; c < vpp; ++c) {
      live[std::size_t(c)] =
          chunk_entries(forwards, c, pp, vpp) - chunk_entries(backwards, vpp - 1 - c, pp, vpp);
      sum += double(live[std::size_t(c)]) * bytes[std::size_t(c)];
    }
    return sum;
  };
  if (warmup == total) {  // forwards only, then backwards: the peak is after the last forward
    fill(total, 0);
    return live;
  }
  const std::int64_t p = pp, steps = std::min(total - warmup, p * vpp);
  const std::int64_t shift = (p - (warmup + 1) % p) % p;  // -(W + 1) mod p
  double best = -1;
  std::int64_t best_k = 0;
  auto visit = [&](std::int64_t k) {
    const double g = fill(warmup + k + 1, k);
    if (g > best) best = g, best_k = k;
  };
  for (std::int64_t base = 0; base < steps; base += p) {
    visit(base);
    if (shift > 0 && base + shift < steps) visit(base + shift);
  }
  visit(steps - 1);
  fill(warmup + best_k + 1, best_k);
  return live;
}

}  // namespace

std::vector<std::int64_t> peak_live_per_chunk(Schedule schedule, int stage, int pp, int vpp,
                                              std::int64_t micro_batches,
                                              const std::vector<double>& chunk_bytes) {
  const ScheduleTraits& facts = schedule_traits(schedule);
  if (facts.greedy) {  // v = 1 (ZB schedules do not interleave): the simulation's cap
    std::vector<std::int64_t> peak(std::size_t(vpp), 0);
    peak[0] = in_flight_chunks(schedule, stage, pp, vpp, micro_batches);
    return peak;
  }
  if (facts.forwards_first) return std::vector<std::int64_t>(std::size_t(vpp), micro_batches);
  const bool zb = facts.split_weight_grad;
  const std::int64_t total = micro_batches * vpp;
  if (chunk_bytes.size() == std::size_t(vpp) && exact_positive(chunk_bytes, total)) {
    // One chunk: the bytes peak with the live count, whose maximum in_flight_chunks states.
    if (vpp == 1) return {in_flight_chunks(schedule, stage, pp, vpp, micro_batches)};
    if (!zb)
      return fold_pairs_peak(warmup_forwards(schedule, stage, pp, vpp, total), pp, vpp, total,
                             chunk_bytes);
  }
  // The peak comes within the warm-up and the first steady period (2pv items): the live set then
  // cycles. Walk that prefix of the program.
  const std::size_t steps = std::size_t(4) * std::size_t(3 * pp * vpp + 2 * pp) + 16;
  const std::vector<ProgramItem> program =
      stage_program(schedule, stage, pp, vpp, micro_batches, steps);
  std::vector<std::int64_t> live(std::size_t(vpp), 0), peak = live;
  double bytes = 0, best = -1;
  for (std::size_t n = 0; n < program.size(); ++n) {
    const ProgramItem& it = program[n];
    const int chunk = order_position(stage, it.k, it.pass != Pass::kForward, pp, vpp).first / pp;
    const bool release = it.pass == (zb ? Pass::kBackwardWeight : Pass::kBackwardInput);
    if (it.pass == Pass::kForward) {
      ++live[std::size_t(chunk)];
      bytes += chunk_bytes[std::size_t(chunk)];
    } else if (release) {
      --live[std::size_t(chunk)];
      bytes -= chunk_bytes[std::size_t(chunk)];
    }
    if (bytes > best) {
      best = bytes;
      peak = live;
    }
  }
  return peak;
}

std::int64_t in_flight_chunks(Schedule schedule, int stage, int pp, int vpp, std::int64_t m) {
  const std::int64_t total = m * vpp, i = stage, p = pp;
  switch (schedule) {
    case Schedule::kGpipe:  // forwards first
      return total;
    case Schedule::k1F1B:
      return std::min(p - i, total);
    case Schedule::kZbH1:
      return std::min(p, total);
    case Schedule::kZbH2:
      return std::min(2 * p - 1, total);
    case Schedule::kInterleaved:
      return std::min(2 * (p - i - 1) + (vpp - 1) * p + 1, total);
  }
  return total;
}

double in_flight_microbatches(Schedule schedule, int stage, int pp, int vpp, std::int64_t m) {
  return double(in_flight_chunks(schedule, stage, pp, vpp, m)) / vpp;
}

std::int64_t greedy_forward_limit(int stage, int pp, int vpp, std::int64_t m) {
  return std::min<std::int64_t>(2 * std::int64_t(pp - stage) - 1, m * vpp);
}

}  // namespace shardsim
