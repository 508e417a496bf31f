// NCCL collectives (fp32, sum) per group size; the ncclUniqueId travels by MPI_Bcast within each
// group's MPI communicator, so the same command works on one node and across nodes.
// AlltoAll is n ncclSend/ncclRecv pairs in one group, as nccl-tests does. Communicators are
// nonblocking and every wait is bounded (descriptors.h: NcclGroups, PeerWork), so a lost peer
// ends in ncclCommAbort and a CallError naming the collective, not a hang. COMPILED ONLY, never
// run: the one GPU lent so far makes no group of two (see cuda_backend.h).
#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "kernels/common/memory_ops.h"
#include "kernels/cuda/descriptors.h"

namespace shardsim::kernels::cuda {

#ifdef SHARDSIM_HAVE_NCCL
void nccl_complete(ncclComm_t comm, ncclResult_t result, const char* call, double timeout_s,
                   const std::function<void()>& abort) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  ncclResult_t state = result;
  while (state == ncclInProgress) {
    std::string why;
    if (const int signal = termination_signal(); signal != 0) {
      why = std::string("interrupted by ") + signal_name(signal) +
            " (the launcher is ending the job: another rank was lost or failed)";
    } else if (std::chrono::steady_clock::now() > deadline) {
      why = "did not complete within " + std::to_string(timeout_s) +
            " s (a peer rank was lost or is stuck)";
    }
    if (!why.empty()) {
      abort();
      throw CallError(call, why + "; communicator aborted (ncclCommAbort)");
    }
    std::this_thread::yield();
    const ncclResult_t r = ncclCommGetAsyncError(comm, &state);
    if (r != ncclSuccess) state = r;
  }
  if (state == ncclSuccess) return;
  const std::string last = ncclGetLastError(comm);
  abort();
  throw CallError(call, std::string(ncclGetErrorString(state)) + (last.empty() ? "" : ": " + last) +
                            "; communicator aborted (ncclCommAbort)");
}

void nccl_poll(ncclComm_t comm, const char* call, const std::function<void()>& abort) {
  ncclResult_t state = ncclSuccess;
  ncclResult_t r = ncclCommGetAsyncError(comm, &state);
  if (r == ncclSuccess) r = state;
  if (r == ncclSuccess || r == ncclInProgress) return;
  const std::string last = ncclGetLastError(comm);
  abort();
  throw CallError(call, std::string("asynchronous error ") + ncclGetErrorString(r) +
                            (last.empty() ? "" : ": " + last) +
                            "; communicator aborted (ncclCommAbort)");
}

namespace {

class NcclInstance final : public Instance, public PeerWork {
 public:
  NcclInstance(CollOp op, const CollectiveGroup& g, NcclGroups& groups, std::size_t index,
               std::int64_t bytes, const DeviceContext& ctx)
      : op_(op),
        g_(g),
        groups_(groups),
        index_(index),
        comm_(static_cast<ncclComm_t>(groups.nccl(index))),
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
    // Wait for the collective with the deadline and the communicator's errors before download()
    // synchronises the stream (which would wait forever for a lost peer).
    wait_device(
        ctx_, [this] { return cudaStreamQuery(ctx_.stream); }, "cudaStreamQuery", this);
    const std::vector<float> got = download(ctx_, recv_.f32(), static_cast<std::size_t>(c_.recv));
    const std::vector<float> want = coll_expected(op_, g_.comm->rank(), g_.size, c_);
    return compare(got, {want.begin(), want.end()}, 0.0, 0.0);
  }

  void poll() override {
    if (comm_ != nullptr) nccl_poll(comm_, last_call_, [this] { abort(); });
  }

  [[noreturn]] void give_up(const std::string& why) override {
    abort();
    throw CallError(
        last_call_,
        why + " (a peer rank was lost or is stuck); communicator aborted (ncclCommAbort)");
  }

 private:
  void abort() {
    groups_.abort(index_);
    comm_ = nullptr;
  }

  // Every NCCL call of a collective: a nonblocking communicator may answer ncclInProgress.
  void call(ncclResult_t result, const char* name) {
    last_call_ = name;
    nccl_complete(comm_, result, name, ctx_.timeout_s, [this] { abort(); });
  }

  void run_once() {
    const float* s = send_.f32();
    float* r = recv_.f32();
    const auto peer = static_cast<std::size_t>(c_.per_peer);
    cudaStream_t st = ctx_.stream;
    switch (op_) {
      case CollOp::kAllReduce:
        call(ncclAllReduce(s, r, c_.send, ncclFloat32, ncclSum, comm_, st), "ncclAllReduce");
        break;
      case CollOp::kReduceScatter:
        call(ncclReduceScatter(s, r, peer, ncclFloat32, ncclSum, comm_, st), "ncclReduceScatter");
        break;
      case CollOp::kAllGather:
        call(ncclAllGather(s, r, peer, ncclFloat32, comm_, st), "ncclAllGather");
        break;
      case CollOp::kAllToAll:
        call(ncclGroupStart(), "ncclGroupStart");
        for (int p = 0; p < g_.size; ++p) {
          call(ncclSend(s + p * peer, peer, ncclFloat32, p, comm_, st), "ncclSend");
          call(ncclRecv(r + p * peer, peer, ncclFloat32, p, comm_, st), "ncclRecv");
        }
        call(ncclGroupEnd(), "ncclGroupEnd");
        last_call_ = "ncclSend/ncclRecv (alltoall)";
        break;
      case CollOp::kSendRecv: {
        const int rank = g_.comm->rank();
        const int n = g_.size;
        call(ncclGroupStart(), "ncclGroupStart");
        call(ncclSend(s, c_.send, ncclFloat32, (rank + 1) % n, comm_, st), "ncclSend");
        call(ncclRecv(r, c_.send, ncclFloat32, (rank + n - 1) % n, comm_, st), "ncclRecv");
        call(ncclGroupEnd(), "ncclGroupEnd");
        last_call_ = "ncclSend/ncclRecv (sendrecv)";
        break;
      }
    }
  }

  CollOp op_;
  const CollectiveGroup& g_;
  NcclGroups& groups_;
  std::size_t index_;
  ncclComm_t comm_;
  const char* last_call_ = "ncclCommGetAsyncError";  // the collective a failure is charged to
  CollCounts c_;
  const DeviceContext& ctx_;
  DeviceBuffer send_;
  DeviceBuffer recv_;
};

}  // namespace

void NcclComm::abort() noexcept {
  if (comm_ == nullptr) return;
  ncclCommAbort(static_cast<ncclComm_t>(comm_));  // nothing more to do if this fails
  comm_ = nullptr;
}

void NcclComm::release() noexcept {
  auto* c = static_cast<ncclComm_t>(comm_);
  if (c == nullptr) return;
  try {  // flush, then free; a communicator that cannot finalize in time is aborted instead
    nccl_complete(c, ncclCommFinalize(c), "ncclCommFinalize", timeout_s_, [this] { abort(); });
    ncclCommDestroy(c);
    comm_ = nullptr;
  } catch (
      ...) {  // aborted by nccl_complete() (or no memory to say why); a destructor cannot report
    abort();  // it; abort() does nothing when nccl_complete() already aborted
  }
}

NcclGroups::NcclGroups(const Comm& world, double timeout_s)
    : groups_(make_collective_groups(world)), timeout_s_(timeout_s) {
  // Every communicator is owned by nccl_ from the moment it exists: when a later group throws,
  // this destructor does not run (the object was never built), but nccl_'s does and releases
  // the communicators made so far. reserve() makes every emplace_back below allocation-free.
  nccl_.reserve(groups_.size());
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    const CollectiveGroup& g = groups_[i];
    nccl_.emplace_back();  // none held while this rank sits out of the group
    if (!g.comm) continue;
    ncclUniqueId id{};
    if (g.comm->rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    check_mpi(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, g.comm->handle()), "MPI_Bcast");
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;  // every call may answer ncclInProgress: nccl_complete() polls it
    ncclComm_t comm = nullptr;
    const ncclResult_t r = ncclCommInitRankConfig(&comm, g.size, id, g.comm->rank(), &config);
    nccl_.back() = NcclComm(comm, timeout_s_);  // owned before anything below can throw
    if (r != ncclSuccess && r != ncclInProgress) {
      abort(i);  // whatever handle the failed call left
      check_nccl(r, "ncclCommInitRankConfig");
    }
    nccl_complete(comm, r, "ncclCommInitRankConfig", timeout_s_, [this, i] { abort(i); });
  }
}

std::vector<Descriptor> collective_descriptors(const SweepPlan& plan, NcclGroups& groups,
                                               const DeviceContext& ctx) {
  std::vector<Descriptor> out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < groups.groups().size(); ++i) {
    const CollectiveGroup* g = &groups.groups()[i];
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
        NcclGroups* all = &groups;
        d.setup = [op, g, all, i, bytes, x] {
          return std::make_unique<NcclInstance>(op, *g, *all, i, bytes, *x);
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

void NcclComm::abort() noexcept {
  comm_ = nullptr;
}
void NcclComm::release() noexcept {
  comm_ = nullptr;
}
NcclGroups::NcclGroups(const Comm& /*world*/, double timeout_s) : timeout_s_(timeout_s) {}
std::vector<Descriptor> collective_descriptors(const SweepPlan&, NcclGroups&,
                                               const DeviceContext&) {
  return {};
}
std::string nccl_version() {
  return "nccl unavailable";
}

#endif

}  // namespace shardsim::kernels::cuda
