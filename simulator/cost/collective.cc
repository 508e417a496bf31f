#include "simulator/cost/collective.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <stdexcept>
#include <utility>

namespace shardsim {
namespace {

constexpr double kSecondsPerUs = 1e-6;
constexpr double kBitsPerByte = 8;
constexpr double kBytesPerGB = 1e9;

// Algorithm steps (hops) of one call, split by the link they cross.
struct Hops {
  double intra = 0;  // NVLink hops
  double inter = 0;  // network hops
};

// One call's traffic: `wire_bytes` leave each rank over a link of `bytes_per_second`, in messages
// of `message_bytes`, after `hops` steps of latency. `network` marks a call that crosses nodes.
struct Transfer {
  double wire_bytes = 0;
  double bytes_per_second = 0;
  double message_bytes = 0;
  Hops hops;
  bool network = false;
};

// The link bandwidths one call sees, per GPU per direction, bytes/s, and for an all-reduce the
// network's gains over them (in-switch reduction, hardware.h; 1 for the other collectives) with
// the declared line rates that bound them (0 = not declared). at_fraction applies the gains.
struct Links {
  double nvlink = 0;
  double nic = 0;
  double nvlink_gain = 1, nic_gain = 1;
  double nvlink_line = 0, nic_line = 0;
};

Links links_for(CollectiveOp op, const NetworkConfig& net) {
  Links l{net.intra_node_GBps * kBytesPerGB, net.inter_node_Gbps * kBytesPerGB / kBitsPerByte};
  if (op == CollectiveOp::kAllReduce) {
    l.nvlink_gain = net.intra_node_all_reduce_gain;
    l.nic_gain = net.inter_node_all_reduce_gain;
    l.nvlink_line = net.intra_node_line_GBps * kBytesPerGB;
    l.nic_line = net.inter_node_line_Gbps * kBytesPerGB / kBitsPerByte;
  }
  return l;
}

// The rates seen by an all-reduce algorithm whose ranks each send `fraction` x S over a link
// (ring 2(n-1)/n, tree 2). In-switch reduction, what a gain stands for, sends each byte once:
// S per rank at best. So a gain counts up to fraction x (line rate / link rate; 1 when no line
// rate is declared) and no further, and the call never moves S faster than the line rate: a
// 2-rank ring sends S already, so it gains only up to the line rate (nothing without one; found
// by review, 2026-11-28: dgx-h100's NVLink gain of 1.59, fitted on 8-rank logs, ran a 2-rank 1 GB
// all-reduce at 500 GB/s over 450 GB/s NVLink).
// The result carries no gain.
Links at_fraction(const Links& l, double fraction) {
  const auto rate = [fraction](double link, double gain, double line) {
    if (gain <= 1 || link <= 0) return link;
    const double headroom = line > 0 ? line / link : 1;
    return link * std::min(gain, std::max(1.0, fraction * headroom));
  };
  return {rate(l.nvlink, l.nvlink_gain, l.nvlink_line), rate(l.nic, l.nic_gain, l.nic_line)};
}

// Group ranks that share one node (a group smaller than a node has all its ranks there).
int local_ranks(const GroupPlacement& g) {
  return std::min(g.size, g.ranks_per_node);
}

// Bottleneck of a ring or tree through the group: NVLink inside a node; across nodes, the
// node-crossing edge is carried by the NICs of the group's k ranks on the node.
double ring_bytes_per_second(const GroupPlacement& g, const Links& links) {
  if (!g.crosses_nodes()) return links.nvlink;
  return std::min(links.nvlink, local_ranks(g) * links.nic);
}

// Hops of a ring collective: `steps` in all; a chunk crosses the network (m - 1) times per pass
// around the ring, and all-reduce makes two passes (reduce-scatter, then all-gather).
Hops ring_hops(CollectiveOp op, const GroupPlacement& g) {
  const double n = g.size, m = g.nodes();
  const double passes = op == CollectiveOp::kAllReduce ? 2 : 1;
  const double steps = passes * (n - 1);
  const double network = passes * (m - 1);
  return {steps - network, network};
}

// Base latency (s) of one call, before per-hop terms: the preset's measured small all-reduce
// minus the hops of the ring that measured it (8 ranks on one node; 16 ranks on 2 nodes).
double base_latency_seconds(bool crosses_nodes, const NetworkConfig& net) {
  const GroupPlacement ref = crosses_nodes ? GroupPlacement{16, 8} : GroupPlacement{8, 8};
  const double measured_us = crosses_nodes ? net.inter_node_latency_us : net.intra_node_latency_us;
  const Hops h = ring_hops(CollectiveOp::kAllReduce, ref);
  const double hops_us =
      h.intra * net.intra_node_hop_latency_us + h.inter * net.inter_node_hop_latency_us;
  return std::max(0.0, measured_us - hops_us) * kSecondsPerUs;
}

// Fraction of link bandwidth reached with messages of `message_bytes`:
// eff = min + (max - min) * x / (x + half); x -> 0 gives min (latency-bound protocols), x >> half
// gives max.
double bandwidth_efficiency(double message_bytes, const NetworkConfig& net) {
  const double lo = net.bandwidth_efficiency_min, hi = net.bandwidth_efficiency_max;
  const double half = net.bandwidth_efficiency_half_bytes;
  if (half <= 0) return hi;
  return lo + (hi - lo) * message_bytes / (message_bytes + half);
}

// Start-up time (s) of one call: its level's base plus per-hop latencies.
double alpha_seconds(const Hops& hops, bool network, const NetworkConfig& net) {
  const double hops_us =
      hops.intra * net.intra_node_hop_latency_us + hops.inter * net.inter_node_hop_latency_us;
  return base_latency_seconds(network, net) + hops_us * kSecondsPerUs;
}

// Time (s) for `wire_bytes` over a link of `bytes_per_second` in messages of `message_bytes`.
double bandwidth_seconds(double wire_bytes, double bytes_per_second, double message_bytes,
                         const NetworkConfig& net) {
  if (wire_bytes <= 0) return 0;
  return wire_bytes / (bytes_per_second * bandwidth_efficiency(message_bytes, net));
}

// Seconds of one call: alpha + wire bytes over the efficient bandwidth.
double transfer_seconds(const Transfer& t, const NetworkConfig& net) {
  return alpha_seconds(t.hops, t.network, net) +
         bandwidth_seconds(t.wire_bytes, t.bytes_per_second, t.message_bytes, net);
}

// Ring all-reduce, reduce-scatter, all-gather or (pipelined chain) broadcast of nccl-tests size S.
double ring_seconds(CollectiveOp op, double bytes, const GroupPlacement& g, const Links& links,
                    const NetworkConfig& net) {
  if (g.size <= 1) return 0;
  const double n = g.size;
  // Bytes each rank sends: 2(n-1)/n S, (n-1)/n S, or the whole S for broadcast.
  double fraction = (n - 1) / n;
  if (op == CollectiveOp::kAllReduce) fraction *= 2;
  if (op == CollectiveOp::kBroadcast) fraction = 1;
  const Transfer t{fraction * bytes, ring_bytes_per_second(g, at_fraction(links, fraction)),
                   bytes / n, ring_hops(op, g), g.crosses_nodes()};
  return transfer_seconds(t, net);
}

// Tree all-reduce: chain inside each node, double binary tree across nodes. Each rank (and each
// node, over its k NICs) sends and receives 2S; depth (k - 1) + ceil(log2 m), traversed twice.
double tree_seconds(double bytes, const GroupPlacement& g, const Links& links,
                    const NetworkConfig& net) {
  if (g.size <= 1) return 0;
  const double k = local_ranks(g), m = g.nodes();
  const Hops hops{2 * (k - 1), 2 * std::ceil(std::log2(m))};
  const Transfer t{2 * bytes, ring_bytes_per_second(g, at_fraction(links, 2)), bytes / g.size, hops,
                   g.crosses_nodes()};
  return transfer_seconds(t, net);
}

// Hierarchical: ring phases inside the node (k ranks) and across nodes (m ranks, one per node,
// each on its own NIC, carrying the node-local 1/k share). Each phase is its own call; the phases
// of an all-reduce see its links (its gains) whatever collective they are.
double hierarchical_seconds(CollectiveOp op, double bytes, const GroupPlacement& g,
                            const Links& links, const NetworkConfig& net) {
  const int k = local_ranks(g);
  const GroupPlacement node{k, k}, across{g.nodes(), 1};
  // all-gather: gather S/k across nodes, then S inside the node; reduce-scatter the reverse.
  if (op != CollectiveOp::kAllReduce)
    return ring_seconds(op, bytes, node, links, net) +
           ring_seconds(op, bytes / k, across, links, net);
  // all-reduce: reduce-scatter S inside, all-reduce S/k across, all-gather S inside. The two
  // node phases together send 2(k-1)/k S per rank: the gain's bound is theirs together.
  const Links inside = at_fraction(links, 2.0 * (k - 1) / k);
  return ring_seconds(CollectiveOp::kReduceScatter, bytes, node, inside, net) +
         ring_seconds(CollectiveOp::kAllReduce, bytes / k, across, links, net) +
         ring_seconds(CollectiveOp::kAllGather, bytes, node, inside, net);
}

// All-to-all: every rank sends S/n to each peer; the on-node share goes over NVLink while the
// off-node share goes over the rank's own NIC, at the same time; the slower one sets the time.
double alltoall_seconds(double bytes, const GroupPlacement& g, const Links& links,
                        const NetworkConfig& net) {
  if (g.size <= 1) return 0;
  const double n = g.size, k = local_ranks(g);
  // One call: k - 1 NVLink peers and n - k network peers.
  const double alpha = alpha_seconds({k - 1, n - k}, g.crosses_nodes(), net);
  const double on_node_bytes = (k - 1) / n * bytes, off_node_bytes = (n - k) / n * bytes;
  const double on_node = bandwidth_seconds(on_node_bytes, links.nvlink, on_node_bytes, net);
  const double off_node = bandwidth_seconds(off_node_bytes, links.nic, off_node_bytes, net);
  return alpha + std::max(on_node, off_node);
}

// Send/recv: one message of S to the next rank, over NVLink or, across nodes, one NIC.
double sendrecv_seconds(double bytes, const GroupPlacement& g, const Links& links,
                        const NetworkConfig& net) {
  if (g.size <= 1) return 0;
  const bool network = g.crosses_nodes();
  const double link = network ? links.nic : links.nvlink;
  const Hops hop = network ? Hops{0, 1} : Hops{1, 0};
  return transfer_seconds({bytes, link, bytes, hop, network}, net);
}

double algorithm_seconds(CollectiveOp op, CollectiveAlgorithm a, double bytes,
                         const GroupPlacement& g, const NetworkConfig& net) {
  const Links links = links_for(op, net);
  switch (a) {
    case CollectiveAlgorithm::kTree:
      return tree_seconds(bytes, g, links, net);
    case CollectiveAlgorithm::kHierarchical:
      return hierarchical_seconds(op, bytes, g, links, net);
    case CollectiveAlgorithm::kDirect:
      return op == CollectiveOp::kAllToAll ? alltoall_seconds(bytes, g, links, net)
                                           : sendrecv_seconds(bytes, g, links, net);
    default:
      return ring_seconds(op, bytes, g, links, net);
  }
}

void require(bool condition, const char* what) {
  if (!condition) throw std::invalid_argument(what);
}

}  // namespace

CollectiveCost fitted_cost(const FittedCollective& f, CollectiveOp op, double bytes, int ranks) {
  CollectiveCost c;
  c.algorithm = CollectiveAlgorithm::kAuto;
  c.source = CostSource::kFitted;
  const double wire = bus_factor(op, ranks) / f.busbw_bytes_per_second;
  c.seconds = f.alpha_s + wire * bytes;
  // A segment with a negative intercept (calibrate/linear_fit.h) used below its first size (in
  // the gap above the previous segment): proportional to size from its time at min_bytes.
  if (f.alpha_s < 0 && bytes < f.min_bytes)
    c.seconds = (f.alpha_s + wire * f.min_bytes) * bytes / f.min_bytes;
  if (!(c.seconds > 0)) c.seconds = wire * bytes;  // never zero or negative time
  c.alg_bytes_per_second = c.seconds > 0 ? bytes / c.seconds : 0;
  c.bus_bytes_per_second = c.alg_bytes_per_second * bus_factor(op, ranks);
  return c;
}

const FittedCollective* find_fitted_collective(CollectiveOp op, const GroupPlacement& group,
                                               const NetworkConfig& net, double bytes,
                                               FittedGap* gap) {
  if (net.fitted_collectives.empty()) return nullptr;
  const int per_node = local_ranks(group);
  const std::string name = collective_name(op);  // the nccl-tests name
  // Entries of this key, ascending min_bytes. A key has a few segments: they are gathered on the
  // stack (this runs for every collective a plan prices), in a vector only beyond that.
  constexpr std::size_t kInline = 16;
  std::array<const FittedCollective*, kInline> inline_segments{};
  std::vector<const FittedCollective*> more;
  std::size_t count = 0;
  for (const auto& f : net.fitted_collectives)
    if (f.ranks == group.size && f.ranks_per_node == per_node && f.busbw_bytes_per_second > 0 &&
        f.op == name) {
      if (count < kInline) {
        inline_segments[count] = &f;
      } else {
        if (more.empty()) more.assign(inline_segments.begin(), inline_segments.end());
        more.push_back(&f);
      }
      ++count;
    }
  if (count == 0) return nullptr;
  const std::span<const FittedCollective*> segments =
      count <= kInline ? std::span<const FittedCollective*>(inline_segments.data(), count)
                       : std::span<const FittedCollective*>(more);
  std::ranges::sort(segments, {}, &FittedCollective::min_bytes);
  // Far above the largest size measured, a fitted line says nothing (a sweep of 8-32 B fitted
  // a bandwidth at the reader's clamp, and 1 GB took 22 us; found by review, 2026-11-27): beyond
  // kFittedExtrapolation times its last size the formula prices the collective.
  // (A range of 0 was not recorded: no limit.)
  const double largest = segments.back()->max_bytes;
  if (largest > 0 && bytes > kFittedExtrapolation * largest) return nullptr;
  // The first segment whose range reaches `bytes`, or whose gap to the next one is crossed
  // above the geometric mean of the gap's ends; the last one otherwise.
  for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
    const double hi = segments[i]->max_bytes, next_lo = segments[i + 1]->min_bytes;
    if (gap != nullptr && hi > 0 && bytes > hi && bytes < next_lo)
      *gap = {segments[i], segments[i + 1]};
    if (bytes <= hi || bytes * bytes < hi * next_lo) return segments[i];
  }
  return segments.back();
}

std::string cost_source_name(CostSource s) {
  return s == CostSource::kFitted ? "fitted" : "formula";
}

GroupPlacement place_group(int size, long long stride, int gpus_per_node) {
  require(size >= 1 && stride >= 1 && gpus_per_node >= 1,
          "place_group: size, stride and gpus_per_node must be >= 1");
  // Members per node: every stride-th rank of a node's gpus_per_node consecutive ranks.
  const long long per_node = std::max(1LL, gpus_per_node / stride);
  return {size, static_cast<int>(std::min<long long>(size, per_node))};
}

namespace {

// supported_algorithms without an allocation (collective_cost runs per collective of a plan).
std::span<const CollectiveAlgorithm> algorithm_candidates(CollectiveOp op) {
  using A = CollectiveAlgorithm;
  static constexpr A kAllReduce[] = {A::kRing, A::kTree, A::kHierarchical};
  static constexpr A kScatterGather[] = {A::kRing, A::kHierarchical};
  static constexpr A kBroadcast[] = {A::kRing};
  static constexpr A kDirect[] = {A::kDirect};
  switch (op) {
    case CollectiveOp::kAllReduce:
      return kAllReduce;
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllGather:
      return kScatterGather;
    case CollectiveOp::kBroadcast:
      return kBroadcast;
    default:  // all-to-all, send/recv
      return kDirect;
  }
}

}  // namespace

std::vector<CollectiveAlgorithm> supported_algorithms(CollectiveOp op) {
  const auto c = algorithm_candidates(op);
  return {c.begin(), c.end()};
}

CollectiveCost collective_cost(CollectiveOp op, double bytes, const GroupPlacement& group,
                               const NetworkConfig& net, CollectiveAlgorithm algorithm) {
  require(bytes >= 0 && group.size >= 1 && group.ranks_per_node >= 1,
          "collective_cost: bytes >= 0, group size and ranks_per_node >= 1 required");
  const auto candidates = algorithm_candidates(op);
  const bool automatic = algorithm == CollectiveAlgorithm::kAuto;
  require(automatic || std::ranges::find(candidates, algorithm) != candidates.end(),
          "collective_cost: algorithm not supported for this collective");
  // A fitted entry for exactly this op and placement replaces the formula (auto only).
  FittedGap gap;
  const FittedCollective* fit = automatic && bytes > 0 && group.size > 1
                                    ? find_fitted_collective(op, group, net, bytes, &gap)
                                    : nullptr;
  if (fit) {
    CollectiveCost c = fitted_cost(*fit, op, bytes, group.size);
    // Inside a gap (h, n) the nearer line, extrapolated, may leave the times its neighbours
    // charge at the gap's ends (found by review, 2026-11-28: 80 MB send/recv on 8 H100s took
    // 973 us where the log measures 820 us at 67 MB and 826 us at 134 MB). The price is kept
    // between L(h) and U(n), the lower segment's at its last size and the upper's at its first.
    // Where those ends rise, the upper half starts no lower than the lower half ended, at the
    // switch sqrt(h n), so the price never falls with size there (found by review, 2026-11-29:
    // an 80-rank H100 all_gather took 2,359 us at 376 MB and 1,952 us at 400 MB where the log
    // measures 1,766 us at 268 MB and 2,426 us at 537 MB). Where the ends fall, so may the price.
    // (Also measured on the 27 shared logs' held-out sizes, and not adopted: never falling across
    // the switch, RoCE 5.57 -> 7.51 %; interpolating between the ends, Polaris 8-node all_gather
    // 3.67 -> 10.47 %.)
    if (gap.lower != nullptr) {
      const auto at = [&](const FittedCollective* f, double s) {
        return fitted_cost(*f, op, s, group.size).seconds;
      };
      const double h = gap.lower->max_bytes, n = gap.upper->min_bytes;
      const double end_lo = at(gap.lower, h), end_hi = at(gap.upper, n);
      const double lo = std::min(end_lo, end_hi), hi = std::max(end_lo, end_hi);
      c.seconds = std::clamp(c.seconds, lo, hi);
      // Where both ends rise, the upper half starts no lower than the lower half ended.
      if (fit == gap.upper && end_hi >= end_lo)
        c.seconds = std::max(c.seconds, std::clamp(at(gap.lower, std::sqrt(h * n)), lo, hi));
      c.alg_bytes_per_second = bytes / c.seconds;
      c.bus_bytes_per_second = c.alg_bytes_per_second * bus_factor(op, group.size);
    }
    return c;
  }
  // Cost every candidate (or just the requested one) and keep the fastest; ties keep the first.
  CollectiveCost best{-1, candidates.front()};
  for (const auto a :
       automatic ? candidates : std::span<const CollectiveAlgorithm>(&algorithm, 1)) {
    const double s = bytes > 0 ? algorithm_seconds(op, a, bytes, group, net) : 0;
    if (best.seconds < 0 || s < best.seconds) best = {s, a};
  }
  // nccl-tests bandwidths: algbw = S / t, busbw = algbw x bus factor.
  if (best.seconds > 0) best.alg_bytes_per_second = bytes / best.seconds;
  best.bus_bytes_per_second = best.alg_bytes_per_second * bus_factor(op, group.size);
  return best;
}

double host_copy_seconds(double bytes, const GpuProfile& gpu) {
  require(bytes >= 0, "host_copy_seconds: bytes must be >= 0");
  if (bytes == 0) return 0;
  return bytes / (gpu.pcie_bytes_per_second * kPcieCopyEfficiency);
}

}  // namespace shardsim
