// Collectives as data, shared by the MPI (cpu) and NCCL (cuda) backends: group layout, element
// counts for an nccl-tests size S, busbw factors, inputs and the exact expected outputs.
// Elements are fp32 holding small integers, so every sum is exact and verification is equality.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/common/comm.h"

namespace shardsim::kernels {

enum class CollOp { kAllReduce, kReduceScatter, kAllGather, kAllToAll, kSendRecv };
inline constexpr CollOp kAllCollOps[] = {CollOp::kAllReduce, CollOp::kReduceScatter,
                                         CollOp::kAllGather, CollOp::kAllToAll, CollOp::kSendRecv};

[[nodiscard]] std::string_view coll_op_name(CollOp op);  // all_reduce, reduce_scatter, ...

// busbw = algbw * factor (nccl-tests, published/nccl-cost-model.md section 7): AllReduce
// 2(n-1)/n; ReduceScatter, AllGather, AlltoAll (n-1)/n; SendRecv 1.
[[nodiscard]] double busbw_factor(CollOp op, int n);

// Per-rank element counts for a requested size S (bytes) in a group of n, nccl-tests style:
// AllReduce, SendRecv count = S/4; ReduceScatter recv = S/(4n), send = n recv; AllGather send =
// S/(4n), recv = n send; AlltoAll S/(4n) per peer, n per-peer blocks each way. At least one
// element per peer. `bytes` is the size actually used: the larger buffer, 4 * max(send, recv).
struct CollCounts {
  std::int64_t send = 0;
  std::int64_t recv = 0;
  std::int64_t per_peer = 0;  // block per rank (ReduceScatter recv, AllGather send, AlltoAll)
  double bytes = 0;
};
[[nodiscard]] CollCounts coll_counts(CollOp op, std::int64_t requested_bytes, int n);

// Send buffer of `rank`: element i = (rank + 1) + (i mod 5).
[[nodiscard]] std::vector<float> coll_input(int rank, std::int64_t count);
// Exactly what `rank` must receive (SendRecv: from rank - 1 around the ring).
[[nodiscard]] std::vector<float> coll_expected(CollOp op, int rank, int n, const CollCounts& c);

// One size of group: world ranks split into consecutive groups of `size` (ranks past the last
// full group sit out and contribute empty runs), all groups running at once as TP/DP groups do.
struct CollectiveGroup {
  int size = 0;
  int groups = 0;            // concurrent groups
  int nodes = 0;             // nodes spanned by group 0
  int ranks_per_node = 0;    // most ranks of group 0 on one node
  std::optional<Comm> comm;  // this rank's group; nullopt when it sits out
  // params shared by this group's items: ranks, groups, nodes, ranks_per_node.
  [[nodiscard]] nlohmann::json params() const;
};

// One CollectiveGroup per size in collective_group_sizes(world.size()). Collective over world.
[[nodiscard]] std::vector<CollectiveGroup> make_collective_groups(const Comm& world);

}  // namespace shardsim::kernels
