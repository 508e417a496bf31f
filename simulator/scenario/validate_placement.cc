// Where the parallel groups sit on the nodes (validate_detail.h).
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "simulator/scenario/validate_detail.h"

namespace shardsim::validate_detail {
namespace {

std::int64_t degree(const Strategy& p, const std::string& dim) {
  return dim == "tp" ? p.tp : dim == "cp" ? p.cp : dim == "dp" ? p.dp : p.pp;
}

// Distance in global ranks between neighbours of a group of `dim` ("tp", "cp", "dp", "pp"): the
// product of the degrees ordered before it in parallel.rank_order (plan.cc assigns every stride
// the same way).
std::int64_t group_stride(const Strategy& p, const std::string& dim) {
  std::int64_t stride = 1;
  for (std::size_t pos = 0; pos < p.rank_order.size(); pos += 3) {
    const std::string d = p.rank_order.substr(pos, 2);
    if (d == dim) break;
    stride *= degree(p, d);
  }
  return stride;
}
std::int64_t tp_stride(const Strategy& p) {
  return group_stride(p, "tp");
}

// Whether every group of `n` members `s` ranks apart sits alike on nodes of `g` GPUs: each group
// spans s * n consecutive ranks, and those spans tile the ranks from 0. A stride of at least the
// node puts every member on a node of its own. Otherwise, within a node, the spans must tile it
// (g a multiple of s * n); across nodes, they must cover whole nodes with g / s members on each
// (s divides g).
bool groups_sit_alike(std::int64_t n, std::int64_t s, std::int64_t g) {
  if (s >= g) return true;
  if (s * n <= g) return g % (s * n) == 0;
  return (s * n) % g == 0 && g % s == 0;
}

}  // namespace

void warn_group_placement(const Scenario& s, StrategyCheck& c) {
  const auto& p = s.strategy;
  if (p.tp > 1 && tp_stride(p) * p.tp > s.cluster.gpus_per_node)
    c.warnings.push_back(
        fmt::format("the tensor-parallel group (tp = {}, members {} ranks apart "
                    "in rank order {}) spans nodes of {} GPUs",
                    p.tp, tp_stride(p), p.rank_order, s.cluster.gpus_per_node));
  // The collectives of a kind are priced for one group placement (simulator/cost/collective.h,
  // place_group); groups that sit differently on the nodes make that placement wrong for some.
  const std::int64_t world = std::int64_t(p.tp) * p.cp * p.dp * p.pp;
  const std::int64_t node = s.cluster.gpus_per_node;
  if (world > node && node > 0)
    for (const char* dim : {"tp", "cp", "dp", "pp"}) {
      const std::int64_t n = degree(p, dim), stride = group_stride(p, dim);
      if (n > 1 && !groups_sit_alike(n, stride, node))
        c.warnings.push_back(fmt::format(
            "the parallel.{} groups ({} members {} {} apart in rank order {}, each spanning {} "
            "consecutive ranks) do not sit alike on nodes of {} GPUs: some cross a node boundary "
            "or hold fewer ranks per node than others, which the model, pricing every group of a "
            "kind alike, does not see; a stride (the product of the sizes before {} in the rank "
            "order) and a span that divide the node size, or a stride of at least the node size, "
            "avoid this",
            dim, n, stride, stride == 1 ? "rank" : "ranks", p.rank_order, stride * n, node, dim));
    }
}

}  // namespace shardsim::validate_detail
