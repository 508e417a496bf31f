#include "kernels/common/collectives.h"

#include <algorithm>
#include <map>

#include "kernels/common/sweep_plan.h"

namespace shardsim::kernels {

std::string_view coll_op_name(CollOp op) {
  switch (op) {
    case CollOp::kAllReduce:
      return "all_reduce";
    case CollOp::kReduceScatter:
      return "reduce_scatter";
    case CollOp::kAllGather:
      return "all_gather";
    case CollOp::kAllToAll:
      return "all_to_all";
    case CollOp::kSendRecv:
      return "send_recv";
  }
  return "all_reduce";
}

double busbw_factor(CollOp op, int n) {
  const double r = static_cast<double>(n);
  switch (op) {
    case CollOp::kAllReduce:
      return 2.0 * (r - 1.0) / r;
    case CollOp::kReduceScatter:
    case CollOp::kAllGather:
    case CollOp::kAllToAll:
      return (r - 1.0) / r;
    case CollOp::kSendRecv:
      return 1.0;
  }
  return 1.0;
}

CollCounts coll_counts(CollOp op, std::int64_t requested_bytes, int n) {
  CollCounts c;
  const std::int64_t elements = std::max<std::int64_t>(requested_bytes / 4, 1);
  const std::int64_t per_peer = std::max<std::int64_t>(elements / n, 1);
  switch (op) {
    case CollOp::kAllReduce:
    case CollOp::kSendRecv:
      c.send = c.recv = elements;
      break;
    case CollOp::kReduceScatter:
      c.per_peer = c.recv = per_peer;
      c.send = n * per_peer;
      break;
    case CollOp::kAllGather:
      c.per_peer = c.send = per_peer;
      c.recv = n * per_peer;
      break;
    case CollOp::kAllToAll:
      c.per_peer = per_peer;
      c.send = c.recv = n * per_peer;
      break;
  }
  c.bytes = 4.0 * static_cast<double>(std::max(c.send, c.recv));
  return c;
}

std::vector<float> coll_input(int rank, std::int64_t count) {
  std::vector<float> v(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(rank + 1 + int(i % 5));
  return v;
}

std::vector<float> coll_expected(CollOp op, int rank, int n, const CollCounts& c) {
  // value(q, i) = (q + 1) + (i mod 5), the input of rank q at element i.
  const auto value = [](int q, std::int64_t i) { return static_cast<float>(q + 1 + int(i % 5)); };
  std::vector<float> out(static_cast<std::size_t>(c.recv));
  for (std::int64_t i = 0; i < c.recv; ++i) {
    float v = 0;
    if (op == CollOp::kAllReduce) {
      for (int q = 0; q < n; ++q) v += value(q, i);
    } else if (op == CollOp::kReduceScatter) {
      for (int q = 0; q < n; ++q) v += value(q, rank * c.per_peer + i);
    } else if (op == CollOp::kAllGather) {
      v = value(static_cast<int>(i / c.per_peer), i % c.per_peer);
    } else if (op == CollOp::kAllToAll) {
      v = value(static_cast<int>(i / c.per_peer), rank * c.per_peer + i % c.per_peer);
    } else {
      v = value((rank + n - 1) % n, i);
    }
    out[static_cast<std::size_t>(i)] = v;
  }
  return out;
}

nlohmann::json CollectiveGroup::params() const {
  return {
      {"ranks", size}, {"groups", groups}, {"nodes", nodes}, {"ranks_per_node", ranks_per_node}};
}

std::vector<CollectiveGroup> make_collective_groups(const Comm& world) {
  const std::vector<int> node = world.node_of_rank();
  std::vector<CollectiveGroup> out;
  for (const int size : collective_group_sizes(world.size())) {
    CollectiveGroup g;
    g.size = size;
    g.groups = world.size() / size;
    std::map<int, int> per_node;
    for (int r = 0; r < size; ++r) ++per_node[node[static_cast<std::size_t>(r)]];
    g.nodes = static_cast<int>(per_node.size());
    for (const auto& [id, count] : per_node) g.ranks_per_node = std::max(g.ranks_per_node, count);
    const bool member = world.rank() < g.groups * size;
    if (auto c = world.split(member ? world.rank() / size : MPI_UNDEFINED, world.rank())) {
      g.comm.emplace(std::move(*c));
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace shardsim::kernels
