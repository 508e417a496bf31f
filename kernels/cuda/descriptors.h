// The cuda backend's descriptor families (one file each). Internal to kernels/cuda.
// COMPILED ONLY, never run (see cuda_backend.h).
#pragma once

#include <string>
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

// NCCL communicators, one per collective group size (ncclCommDestroy on destruction).
class NcclGroups {
 public:
  // Collective over world: rank 0 of each group makes the ncclUniqueId, MPI_Bcast shares it.
  explicit NcclGroups(const Comm& world);
  NcclGroups(const NcclGroups&) = delete;
  NcclGroups& operator=(const NcclGroups&) = delete;
  ~NcclGroups();
  [[nodiscard]] const std::vector<CollectiveGroup>& groups() const { return groups_; }
  // NCCL communicator of groups()[i] on this rank (an ncclComm_t), nullptr when it sits out.
  [[nodiscard]] void* nccl(std::size_t i) const { return nccl_[i]; }

 private:
  std::vector<CollectiveGroup> groups_;
  std::vector<void*> nccl_;
};

[[nodiscard]] std::vector<Descriptor> collective_descriptors(const SweepPlan& plan,
                                                             const NcclGroups& groups,
                                                             const DeviceContext& ctx);

// "nccl unavailable" when built without NCCL, else the NCCL version as "2.28.9".
[[nodiscard]] std::string nccl_version();

}  // namespace shardsim::kernels::cuda
