// Names of collectives and algorithms (nccl-tests spelling first) and the nccl-tests bus factor.
#include <array>
#include <string_view>
#include <utility>

#include "simulator/cost/collective.h"

namespace shardsim {
namespace {

constexpr std::array<std::pair<std::string_view, CollectiveOp>, 8> kOpNames = {
    {{"all_reduce", CollectiveOp::kAllReduce},
     {"reduce_scatter", CollectiveOp::kReduceScatter},
     {"all_gather", CollectiveOp::kAllGather},
     {"alltoall", CollectiveOp::kAllToAll},
     {"sendrecv", CollectiveOp::kSendRecv},
     {"broadcast", CollectiveOp::kBroadcast},
     {"all_to_all", CollectiveOp::kAllToAll},  // aliases after the nccl-tests names
     {"send_recv", CollectiveOp::kSendRecv}}};

constexpr std::array<std::pair<std::string_view, CollectiveAlgorithm>, 5> kAlgorithmNames = {
    {{"auto", CollectiveAlgorithm::kAuto},
     {"ring", CollectiveAlgorithm::kRing},
     {"tree", CollectiveAlgorithm::kTree},
     {"hierarchical", CollectiveAlgorithm::kHierarchical},
     {"direct", CollectiveAlgorithm::kDirect}}};

}  // namespace

std::string collective_name(CollectiveOp op) {
  for (const auto& [name, value] : kOpNames)
    if (value == op) return std::string(name);
  return "unknown";
}

std::string algorithm_name(CollectiveAlgorithm a) {
  for (const auto& [name, value] : kAlgorithmNames)
    if (value == a) return std::string(name);
  return "unknown";
}

std::optional<CollectiveOp> collective_from_name(std::string_view name) {
  for (const auto& [n, value] : kOpNames)
    if (n == name) return value;
  return std::nullopt;
}

std::optional<CollectiveAlgorithm> algorithm_from_name(std::string_view name) {
  for (const auto& [n, value] : kAlgorithmNames)
    if (n == name) return value;
  return std::nullopt;
}

std::vector<std::string> collective_names() {
  std::vector<std::string> names;
  for (const auto& [name, value] : kOpNames) names.emplace_back(name);
  return names;
}

double bus_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::kAllReduce:
      return 2 * (n - 1) / n;
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllGather:
    case CollectiveOp::kAllToAll:
      return (n - 1) / n;
    default:  // send/recv, broadcast
      return 1;
  }
}

}  // namespace shardsim
