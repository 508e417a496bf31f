// MPI collectives (fp32, MPI_SUM) over the plan's sizes, per group size. Each rank verifies what it
// received against coll_expected(); every MPI call is checked (the communicator returns errors).
#include <climits>
#include <cstring>
#include <set>
#include <string>

#include "kernels/common/errors.h"
#include "kernels/common/memory_ops.h"
#include "kernels/cpu/descriptors.h"

namespace shardsim::kernels::cpu {
namespace {

class MpiCollectiveInstance final : public Instance {
 public:
  MpiCollectiveInstance(CollOp op, const CollectiveGroup& group, std::int64_t bytes)
      : op_(op), group_(group), counts_(coll_counts(op, bytes, group.size)) {
    if (counts_.send > INT_MAX || counts_.recv > INT_MAX) {
      throw CallError("MPI collective",
                      "element count exceeds INT_MAX: " + std::to_string(counts_.send));
    }
    if (!group_.comm) return;  // this rank sits out
    send_ = coll_input(group_.comm->rank(), counts_.send);
    recv_.assign(static_cast<std::size_t>(counts_.recv), 0.0f);
  }

  void run(int times) override {
    if (!group_.comm) return;
    for (int t = 0; t < times; ++t) run_once(group_.comm->handle());
  }

  Verification verify() override {
    if (!group_.comm) return {true, "rank outside every group of this size"};
    const Comm& c = *group_.comm;
    return compare(recv_, to_double(coll_expected(op_, c.rank(), c.size(), counts_)), 0.0, 0.0);
  }

 private:
  static std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

  void run_once(MPI_Comm comm) {
    const int send = static_cast<int>(counts_.send);
    const int peer = static_cast<int>(counts_.per_peer);
    switch (op_) {
      case CollOp::kAllReduce:
        check_mpi(MPI_Allreduce(send_.data(), recv_.data(), send, MPI_FLOAT, MPI_SUM, comm),
                  "MPI_Allreduce");
        break;
      case CollOp::kReduceScatter:
        check_mpi(
            MPI_Reduce_scatter_block(send_.data(), recv_.data(), peer, MPI_FLOAT, MPI_SUM, comm),
            "MPI_Reduce_scatter_block");
        break;
      case CollOp::kAllGather:
        check_mpi(MPI_Allgather(send_.data(), peer, MPI_FLOAT, recv_.data(), peer, MPI_FLOAT, comm),
                  "MPI_Allgather");
        break;
      case CollOp::kAllToAll:
        check_mpi(MPI_Alltoall(send_.data(), peer, MPI_FLOAT, recv_.data(), peer, MPI_FLOAT, comm),
                  "MPI_Alltoall");
        break;
      case CollOp::kSendRecv: {
        const int n = group_.size;
        const int r = group_.comm->rank();
        check_mpi(MPI_Sendrecv(send_.data(), send, MPI_FLOAT, (r + 1) % n, 0, recv_.data(), send,
                               MPI_FLOAT, (r + n - 1) % n, 0, comm, MPI_STATUS_IGNORE),
                  "MPI_Sendrecv");
        break;
      }
    }
  }

  CollOp op_;
  const CollectiveGroup& group_;
  CollCounts counts_;
  std::vector<float> send_;
  std::vector<float> recv_;
};

}  // namespace

std::vector<Descriptor> collective_descriptors(const SweepPlan& plan,
                                               const std::vector<CollectiveGroup>& groups) {
  std::vector<Descriptor> out;
  std::set<std::string> names;
  for (const CollectiveGroup& g : groups) {
    for (const CollOp op : kAllCollOps) {
      for (const std::int64_t bytes : plan.collective_bytes) {
        const CollCounts c = coll_counts(op, bytes, g.size);
        Descriptor d;
        d.kind = Kind::kCollective;
        d.name = "collective/mpi/" + std::string(coll_op_name(op)) + "/g" + std::to_string(g.size) +
                 "/" + std::to_string(static_cast<std::int64_t>(c.bytes));
        // Small sizes round to the same bytes actually used (counts of whole floats per
        // peer): keep the first descriptor of a name, names are unique per sweep.
        if (!names.insert(d.name).second) continue;
        d.params = g.params();
        d.params.update({{"op", coll_op_name(op)},
                         {"bytes", c.bytes},
                         {"count", c.per_peer > 0 ? c.per_peer : c.send},
                         {"dtype", "fp32"},
                         {"library", "mpi"}});
        d.work.bytes = c.bytes;
        d.work.busbw_factor = busbw_factor(op, g.size);
        const CollectiveGroup* group = &g;
        d.setup = [op, group, bytes] {
          return std::make_unique<MpiCollectiveInstance>(op, *group, bytes);
        };
        out.push_back(std::move(d));
      }
    }
  }
  return out;
}

}  // namespace shardsim::kernels::cpu
