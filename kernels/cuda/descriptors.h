// The cuda backend's descriptor families (one file each). Internal to kernels/cuda.
// What has run on a GPU: cuda_backend.h.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/collectives.h"
#include "kernels/common/descriptor.h"
#include "kernels/common/sweep_plan.h"
#include "kernels/cuda/cuda_check.h"

namespace shardsim::kernels::cuda {

// REQUIRES: `ctx` (and `groups`) outlive the descriptors.
[[nodiscard]] std::vector<Descriptor> gemm_descriptors(const SweepPlan& plan,
                                                       const DeviceContext& ctx);
[[nodiscard]] std::vector<Descriptor> memory_bound_descriptors(const SweepPlan& plan,
                                                               const DeviceContext& ctx);
[[nodiscard]] std::vector<Descriptor> copy_and_launch_descriptors(const SweepPlan& plan,
                                                                  const DeviceContext& ctx);

// Device work that depends on other ranks (NCCL). The host waits for device work
// (wait_device) poll it, so that a lost or failed peer becomes a CallError naming the collective
// instead of a hang.
class PeerWork {
 public:
  virtual ~PeerWork() = default;
  // Throws CallError (after ncclCommAbort) when the communicator reports an asynchronous error.
  virtual void poll() = 0;
  // The wait cannot finish (`why`: its deadline passed, or the launcher is ending the job):
  // ncclCommAbort (so the stream drains), then throws CallError naming the collective.
  [[noreturn]] virtual void give_up(const std::string& why) = 0;
};

// Polls `query` (cudaEventQuery / cudaStreamQuery of the work; `query_name` names it) until it
// returns cudaSuccess. Meanwhile polls `peers` (may be null), and gives up after ctx.timeout_s or
// on a termination signal (comm.h): peers->give_up, else CallError(query_name, ...).
void wait_device(const DeviceContext& ctx, const std::function<cudaError_t()>& query,
                 const char* query_name, PeerWork* peers);

// Owns one NCCL communicator (an ncclComm_t; void* keeps nccl.h out of this header), so that it
// is released on every path, an exception thrown while NcclGroups is still being built included.
// Release: ncclCommFinalize, its wait bounded by timeout_s, then ncclCommDestroy; a communicator
// that cannot finalize in time is aborted (ncclCommAbort) instead. Move-only.
class NcclComm {
 public:
  NcclComm() = default;
  NcclComm(void* comm, double timeout_s) noexcept : comm_(comm), timeout_s_(timeout_s) {}
  NcclComm(NcclComm&& other) noexcept
      : comm_(std::exchange(other.comm_, nullptr)), timeout_s_(other.timeout_s_) {}
  NcclComm& operator=(NcclComm&& other) noexcept {
    if (this != &other) {
      release();
      comm_ = std::exchange(other.comm_, nullptr);
      timeout_s_ = other.timeout_s_;
    }
    return *this;
  }
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;
  ~NcclComm() { release(); }
  // The communicator, nullptr when none is held (never made, released or aborted).
  [[nodiscard]] void* get() const { return comm_; }
  // ncclCommAbort, once; get() is nullptr afterwards.
  void abort() noexcept;

 private:
  void release() noexcept;  // finalize and destroy (or abort); get() is nullptr afterwards
  void* comm_ = nullptr;
  double timeout_s_ = 0;
};

// NCCL communicators, one per collective group size, created nonblocking (ncclConfig_t
// blocking = 0) so that no NCCL call can hang: every call that answers ncclInProgress is polled
// with ncclCommGetAsyncError until it completes, fails or passes ctx.timeout_s, and then the
// communicator is aborted (ncclCommAbort). Finalized and destroyed on destruction (NcclComm); when
// the constructor throws (a group's ncclGetUniqueId, MPI_Bcast or ncclCommInitRankConfig fails),
// the communicators of the groups before it are released the same way.
class NcclGroups {
 public:
  // Collective over world: rank 0 of each group makes the ncclUniqueId, MPI_Bcast shares it.
  NcclGroups(const Comm& world, double timeout_s);
  NcclGroups(const NcclGroups&) = delete;
  NcclGroups& operator=(const NcclGroups&) = delete;
  ~NcclGroups() = default;
  [[nodiscard]] const std::vector<CollectiveGroup>& groups() const { return groups_; }
  // NCCL communicator of groups()[i] on this rank (an ncclComm_t), nullptr when it sits out or
  // after abort(i).
  [[nodiscard]] void* nccl(std::size_t i) const { return nccl_[i].get(); }
  // ncclCommAbort of groups()[i]'s communicator (once; later nccl(i) is nullptr).
  void abort(std::size_t i) { nccl_[i].abort(); }

 private:
  std::vector<CollectiveGroup> groups_;
  std::vector<NcclComm> nccl_;  // after groups_: released before the MPI communicators
  double timeout_s_;
};

[[nodiscard]] std::vector<Descriptor> collective_descriptors(const SweepPlan& plan,
                                                             NcclGroups& groups,
                                                             const DeviceContext& ctx);

#ifdef SHARDSIM_HAVE_NCCL
// Completes an NCCL call on a nonblocking communicator: `result` is what the call returned; while
// the communicator's state is ncclInProgress, polls ncclCommGetAsyncError until it leaves that
// state or `timeout_s` passes (or a termination signal arrives, comm.h). On failure calls
// `abort` (which must ncclCommAbort the communicator) and throws CallError(call, ...).
void nccl_complete(ncclComm_t comm, ncclResult_t result, const char* call, double timeout_s,
                   const std::function<void()>& abort);
// Throws CallError(call, ...) after `abort` when the communicator reports an asynchronous error;
// returns while it is fine or still in progress.
void nccl_poll(ncclComm_t comm, const char* call, const std::function<void()>& abort);
#endif

// "nccl unavailable" when built without NCCL, else the NCCL version as "2.28.9".
[[nodiscard]] std::string nccl_version();

}  // namespace shardsim::kernels::cuda
