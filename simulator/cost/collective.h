// Collective communication cost: latency plus size over bandwidth with size-dependent efficiency,
// on a two-level topology (NVLink/NVSwitch inside a node; NICs across nodes, bandwidth per GPU).
// Pure functions; no state.
//
// Model (every bandwidth per GPU per direction, from NetworkConfig):
//   B_nvl = intra_node_GBps * 1e9 B/s,  B_nic = inter_node_Gbps * 1e9 / 8 B/s;
//   an all-reduce (every algorithm, all of its phases) sees B_nvl * intra_node_all_reduce_gain
//   and B_nic * inter_node_all_reduce_gain: in-switch reduction (hardware.h), 1 by default,
//   each gain bounded so that the call moves no more than S per rank at the line rate: at most
//   f x line / link for an algorithm whose ranks send f x S (ring 2(n-1)/n, tree 2; 1 x line /
//   link for a 2-rank ring; line = link when no line rate is declared).
//   A group of n ranks sits on m nodes with k of its ranks per node.
//   time = alpha + wire_bytes / (B * eff(message_bytes))
//   alpha = base(level) + intra_hops * intra_node_hop_latency_us + inter_hops * inter_hop_us
//   eff(x) = eff_min + (eff_max - eff_min) * x / (x + half_bytes)        (saturating in x)
// base(level) is chosen so that the ring all-reduce the preset's latency was measured on comes out
// at exactly that latency: base_intra = intra_node_latency_us - 14 intra hops (8 ranks on one
// node: 2(8-1) hops), base_inter = inter_node_latency_us - (28 intra + 2 network hops) (16 ranks
// on 2 nodes). So the presets' latencies are read as whole-collective start-up times, and other
// group sizes move away from them by the per-hop terms. Negative bases clamp to 0.
// A ring's (or a tree's) node-crossing edge is carried by the k NICs of the group's ranks on that
// node (NCCL spreads its channels over the NICs), so B_ring = B_nvl on one node and
// min(B_nvl, k * B_nic) across nodes. Algorithms per collective:
//   ring          all_reduce 2(n-1)/n*S, reduce_scatter/all_gather (n-1)/n*S, broadcast S on the
//                 wire per rank; hops 2(n-1) or n-1, of which 2(m-1) or m-1 network hops;
//                 message S/n.
//   tree          all_reduce only: NCCL's double binary tree across nodes, a chain inside. Each
//                 node sends and receives 2S (S/2 up and down the tree where it is a leaf, S/2 up
//                 and 2 x S/2 down where it is inner), spread over its k NICs: wire 2S over
//                 B_ring; hops 2((k-1) + ceil(log2 m)); message S/n, as for the ring (S/2
//                 would let the tree saturate ~n/2 times sooner, which neither NCCL's own
//                 mid-size tree correction nor a measured 10-node H100 all_reduce supports).
//   hierarchical  all_reduce = ring reduce_scatter inside the node (k ranks) + ring all_reduce of
//                 S/k across nodes (m ranks, one per node, each over its own NIC) + ring
//                 all_gather inside the node; reduce_scatter and all_gather use the two phases they
//                 need. Three (two) separate calls: each phase pays its own alpha.
//   direct        alltoall: the (k-1)/n*S on-node share over NVLink and the (n-k)/n*S off-node
//                 share over the rank's own NIC move at once, time = the slower; hops k-1 intra,
//                 n-k network; message: each link's whole share (every peer's transfer is in
//                 flight at once, so the link fills with the sum, not with one peer's S/n; with
//                 S/n the fit on a 10-node H100 all-to-all missed its measured times by a median
//                 14.8 %, with the share 2.8 %, scenarios/measurements/fits/dgx-h100.txt).
//                 sendrecv: one message S over NVLink, or over one NIC when the group crosses
//                 nodes; one hop.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/hardware/hardware.h"

namespace shardsim {

enum class CollectiveOp {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kAllToAll,
  kSendRecv,
  kBroadcast
};
// kDirect: point-to-point transfers to every peer (all-to-all) or to one peer (send/recv).
enum class CollectiveAlgorithm { kAuto, kRing, kTree, kHierarchical, kDirect };

// Where a communicator's ranks sit: `size` ranks, `ranks_per_node` of them on each node they use.
struct GroupPlacement {
  int size = 1;
  int ranks_per_node = 1;
  [[nodiscard]] int nodes() const { return (size + ranks_per_node - 1) / ranks_per_node; }
  [[nodiscard]] bool crosses_nodes() const { return nodes() > 1; }
};

// A group of `size` ranks whose members are `stride` global ranks apart (rank order TP innermost,
// then CP, then EP/DP, then PP), on nodes of `gpus_per_node` consecutive global ranks.
// ranks_per_node = min(size, gpus_per_node / stride), at least 1 (a stride that does not divide
// the node size counts the smaller number of members per node: fewer NICs, the conservative side).
// REQUIRES: size >= 1, stride >= 1, gpus_per_node >= 1 (std::invalid_argument otherwise).
[[nodiscard]] GroupPlacement place_group(int size, long long stride, int gpus_per_node);

// Where a collective's time came from: the topology formula above, or a fitted entry of
// NetworkConfig::fitted_collectives.
enum class CostSource { kFormula, kFitted };

struct CollectiveCost {
  double seconds = 0;
  // The formula's algorithm; kAuto for a fitted time (NCCL's own choice, as measured).
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  double alg_bytes_per_second = 0;  // bytes / seconds (nccl-tests algbw); 0 when seconds is 0
  double bus_bytes_per_second = 0;  // algbw x the collective's bus factor (nccl-tests busbw)
  CostSource source = CostSource::kFormula;
};

// `bytes` follows nccl-tests' "size": the whole buffer for all-gather and reduce-scatter, the
// per-rank buffer for all-reduce and broadcast, the per-rank send buffer for all-to-all, and the
// message for send/recv. kAuto picks the fastest algorithm the collective supports (the first of
// supported_algorithms() on a tie). A single-rank group or 0 bytes costs 0 s.
// Fitted collectives: with kAuto, an entry of net.fitted_collectives whose (op, ranks,
// ranks_per_node) equal (op, group.size, min(group.size, group.ranks_per_node)) exactly is used
// instead of the formula: time = alpha_s + bus_factor(op, n) * bytes / busbw_bytes_per_second
// (nccl-tests busbw = algbw x bus factor, inverted), source kFitted. No nearest-neighbour or
// scaling rule: any other group (or an explicitly requested algorithm) uses the formula.
// Segments: several entries may share one key when their [min_bytes, max_bytes] ranges are
// disjoint (the profile reader checks this); each is one regime of the measured curve (NCCL's
// LL / LL128 / Simple protocols, ring vs tree). The entry whose range contains `bytes` is used;
// below the lowest range the lowest segment, above the highest range the highest; in a gap
// between two ranges the nearer one in log(bytes) (the gap splits at the geometric mean of its
// ends). A single entry (or one without a recorded range) covers every size: the alpha-beta form
// extrapolates.
// REQUIRES: bytes >= 0, group.size >= 1, group.ranks_per_node >= 1, and `algorithm` kAuto or one
// of supported_algorithms(op) (std::invalid_argument otherwise).
[[nodiscard]] CollectiveCost collective_cost(
    CollectiveOp op, double bytes, const GroupPlacement& group, const NetworkConfig& net,
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::kAuto);

// The algorithms collective_cost accepts for `op` (kAuto excluded): all_reduce ring, tree,
// hierarchical; reduce_scatter and all_gather ring, hierarchical; broadcast ring; all-to-all and
// send/recv direct.
[[nodiscard]] std::vector<CollectiveAlgorithm> supported_algorithms(CollectiveOp op);

// Host <-> device copy of `bytes` over PCIe (one direction): bytes / (pcie_bytes_per_second x
// kPcieCopyEfficiency). REQUIRES: bytes >= 0.
inline constexpr double kPcieCopyEfficiency = 0.8;  // pinned-memory copies reach ~80% of the
                                                    // PCIe line rate (typical; not fitted)
[[nodiscard]] double host_copy_seconds(double bytes, const GpuProfile& gpu);

// One fitted entry's price of `bytes` (nccl-tests size) on `ranks`: time = alpha_s +
// bus_factor(op, ranks) x bytes / busbw; below min_bytes a negative-intercept entry scales its
// time at min_bytes; never zero or negative. algbw = bytes / time; busbw = algbw x factor.
[[nodiscard]] CollectiveCost fitted_cost(const FittedCollective& f, CollectiveOp op, double bytes,
                                         int ranks);

// How far above the largest measured size a fitted entry is still used (16x: a log to 1 GiB
// serves up to 16 GiB); beyond it the formula prices the collective.
inline constexpr double kFittedExtrapolation = 16;

// The fitted entry collective_cost would use for (op, group) at nccl-tests size `bytes` (the
// segment rule above), or nullptr when no entry has this op and placement, or `bytes` is more
// than kFittedExtrapolation times the entries' largest size.
// With `gap` given and `bytes` strictly inside the gap between two segments: the segments on
// either side (collective_cost keeps the price between theirs at the gap's ends, see there).
struct FittedGap {
  const FittedCollective* lower = nullptr;
  const FittedCollective* upper = nullptr;
};
[[nodiscard]] const FittedCollective* find_fitted_collective(CollectiveOp op,
                                                             const GroupPlacement& group,
                                                             const NetworkConfig& net, double bytes,
                                                             FittedGap* gap = nullptr);
// "formula" or "fitted".
[[nodiscard]] std::string cost_source_name(CostSource s);

// nccl-tests names: all_reduce, reduce_scatter, all_gather, alltoall, sendrecv, broadcast.
[[nodiscard]] std::string collective_name(CollectiveOp op);
// ring, tree, hierarchical, direct, auto.
[[nodiscard]] std::string algorithm_name(CollectiveAlgorithm a);
// Inverse of the two above; collective_from_name also takes all_to_all and send_recv.
[[nodiscard]] std::optional<CollectiveOp> collective_from_name(std::string_view name);
[[nodiscard]] std::optional<CollectiveAlgorithm> algorithm_from_name(std::string_view name);
// Every accepted collective name, nccl-tests names first (for messages and --help).
[[nodiscard]] std::vector<std::string> collective_names();
// nccl-tests bus factor: all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n;
// send/recv and broadcast 1.
[[nodiscard]] double bus_factor(CollectiveOp op, int ranks);

}  // namespace shardsim
