#include "simulator/plan/schedule.h"

#include <algorithm>

namespace shardsim {
namespace {

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

}  // namespace

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

std::vector<std::int64_t> peak_live_per_chunk(Schedule schedule, int stage, int pp, int vpp,
                                              std::int64_t micro_batches,
                                              const std::vector<double>& chunk_bytes) {
  std::vector<std::int64_t> live(std::size_t(vpp), 0), peak = live;
  const ScheduleTraits& facts = schedule_traits(schedule);
  if (facts.greedy) {  // v = 1 (ZB schedules do not interleave): the simulation's cap
    peak[0] = in_flight_chunks(schedule, stage, pp, vpp, micro_batches);
    return peak;
  }
  if (facts.forwards_first) {
    std::fill(peak.begin(), peak.end(), micro_batches);
    return peak;
  }
  // The peak comes within the warm-up and the first steady period (2pv items): the live set then
  // cycles. Walk that prefix of the program.
  const std::size_t steps = std::size_t(4) * std::size_t(3 * pp * vpp + 2 * pp) + 16;
  const std::vector<ProgramItem> program =
      stage_program(schedule, stage, pp, vpp, micro_batches, steps);
  const bool zb = facts.split_weight_grad;
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
