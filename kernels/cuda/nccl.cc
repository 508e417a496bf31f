// NCCL collectives (fp32, sum) per group size; the ncclUniqueId travels by MPI_Bcast within each
// group's MPI communicator, so the same command works on one node and across nodes.
// AlltoAll is n ncclSend/ncclRecv pairs in one group, as nccl-tests does. COMPILED ONLY, never
// run (see cuda_backend.h).
#include <memory>
#include <set>
#include <string>

#include "kernels/common/memory_ops.h"
#include "kernels/cuda/descriptors.h"

namespace shardsim::kernels::cuda {

#ifdef SHARDSIM_HAVE_NCCL
namespace {

class NcclInstance final : public Instance {
 public:
  NcclInstance(CollOp op, const CollectiveGroup& g, void* comm, std::int64_t bytes,
               const DeviceContext& ctx)
      : op_(op),
        g_(g),
        comm_(static_cast<ncclComm_t>(comm)),
        c_(coll_counts(op, bytes, g.size)),
        ctx_(ctx),
        send_(static_cast<std::size_t>(c_.send) * 4),
        recv_(static_cast<std::size_t>(c_.recv) * 4) {
    if (comm_ != nullptr) upload(ctx_, send_.f32(), coll_input(g_.comm->rank(), c_.send));
  }

  void run(int times) override {
    if (comm_ == nullptr) return;
    for (int t = 0; t < times; ++t) run_once();
  }

  Verification verify() override {
    if (comm_ == nullptr) return {true, "rank outside every group of this size"};
    ncclResult_t async = ncclSuccess;
    check_nccl(ncclCommGetAsyncError(comm_, &async), "ncclCommGetAsyncError");
    check_nccl(async, "NCCL (asynchronous error)");
    const std::vector<float> got = download(ctx_, recv_.f32(), static_cast<std::size_t>(c_.recv));
    const std::vector<float> want = coll_expected(op_, g_.comm->rank(), g_.size, c_);
    return compare(got, {want.begin(), want.end()}, 0.0, 0.0);
  }

 private:
  void run_once() {
    const float* s = send_.f32();
    float* r = recv_.f32();
    const auto peer = static_cast<std::size_t>(c_.per_peer);
    cudaStream_t st = ctx_.stream;
    switch (op_) {
      case CollOp::kAllReduce:
        check_nccl(ncclAllReduce(s, r, c_.send, ncclFloat32, ncclSum, comm_, st), "ncclAllReduce");
        break;
      case CollOp::kReduceScatter:
        check_nccl(ncclReduceScatter(s, r, peer, ncclFloat32, ncclSum, comm_, st),
                   "ncclReduceScatter");
        break;
      case CollOp::kAllGather:
        check_nccl(ncclAllGather(s, r, peer, ncclFloat32, comm_, st), "ncclAllGather");
        break;
      case CollOp::kAllToAll:
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        for (int p = 0; p < g_.size; ++p) {
          check_nccl(ncclSend(s + p * peer, peer, ncclFloat32, p, comm_, st), "ncclSend");
          check_nccl(ncclRecv(r + p * peer, peer, ncclFloat32, p, comm_, st), "ncclRecv");
        }
        check_nccl(ncclGroupEnd(), "ncclGroupEnd");
        break;
      case CollOp::kSendRecv: {
        const int rank = g_.comm->rank();
        const int n = g_.size;
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        check_nccl(ncclSend(s, c_.send, ncclFloat32, (rank + 1) % n, comm_, st), "ncclSend");
        check_nccl(ncclRecv(r, c_.send, ncclFloat32, (rank + n - 1) % n, comm_, st), "ncclRecv");
        check_nccl(ncclGroupEnd(), "ncclGroupEnd");
        break;
      }
    }
  }

  CollOp op_;
  const CollectiveGroup& g_;
  ncclComm_t comm_;
  CollCounts c_;
  const DeviceContext& ctx_;
  DeviceBuffer send_;
  DeviceBuffer recv_;
};

}  // namespace

NcclGroups::NcclGroups(const Comm& world) : groups_(make_collective_groups(world)) {
  for (const CollectiveGroup& g : groups_) {
    ncclComm_t comm = nullptr;
    if (g.comm) {
      ncclUniqueId id{};
      if (g.comm->rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
      check_mpi(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, g.comm->handle()), "MPI_Bcast");
      check_nccl(ncclCommInitRank(&comm, g.size, id, g.comm->rank()), "ncclCommInitRank");
    }
    nccl_.push_back(comm);
  }
}

NcclGroups::~NcclGroups() {
  for (void* c : nccl_) {
    if (c != nullptr) ncclCommDestroy(static_cast<ncclComm_t>(c));
  }
}

std::vector<Descriptor> collective_descriptors(const SweepPlan& plan, const NcclGroups& groups,
                                               const DeviceContext& ctx) {
  std::vector<Descriptor> out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < groups.groups().size(); ++i) {
    const CollectiveGroup* g = &groups.groups()[i];
    void* comm = groups.nccl(i);
    for (const CollOp op : kAllCollOps) {
      for (const std::int64_t bytes : plan.collective_bytes) {
        const CollCounts c = coll_counts(op, bytes, g->size);
        Descriptor d;
        d.kind = Kind::kCollective;
        d.name = "collective/nccl/" + std::string(coll_op_name(op)) + "/g" +
                 std::to_string(g->size) + "/" + std::to_string(static_cast<std::int64_t>(c.bytes));
        // Small sizes round to the same bytes actually used (counts of whole floats per
        // peer): keep the first descriptor of a name, names are unique per sweep.
        if (!names.insert(d.name).second) continue;
        d.params = g->params();
        d.params.update({{"op", coll_op_name(op)},
                         {"bytes", c.bytes},
                         {"count", c.per_peer > 0 ? c.per_peer : c.send},
                         {"dtype", "fp32"},
                         {"library", "nccl"}});
        d.work.bytes = c.bytes;
        d.work.busbw_factor = busbw_factor(op, g->size);
        const DeviceContext* x = &ctx;
        d.setup = [op, g, comm, bytes, x] {
          return std::make_unique<NcclInstance>(op, *g, comm, bytes, *x);
        };
        out.push_back(std::move(d));
      }
    }
  }
  return out;
}

std::string nccl_version() {
  int code = 0;
  if (ncclGetVersion(&code) != ncclSuccess) return "unknown";
  // NCCL >= 2.9: 10000 major + 100 minor + patch.
  return std::to_string(code / 10000) + "." + std::to_string(code % 10000 / 100) + "." +
         std::to_string(code % 100);
}

#else  // built without NCCL: no collectives on this backend

NcclGroups::NcclGroups(const Comm& /*world*/) {}
NcclGroups::~NcclGroups() = default;
std::vector<Descriptor> collective_descriptors(const SweepPlan&, const NcclGroups&,
                                               const DeviceContext&) {
  return {};
}
std::string nccl_version() {
  return "nccl unavailable";
}

#endif

}  // namespace shardsim::kernels::cuda
