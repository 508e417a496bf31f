// The composite workload of `shardsim validate` on the cuda backend (kernels/common/composite.h):
// the shared model (composite_model.h) on cublasSgemm (fp32, default math: no TF32), the CUDA
// kernels of composite_kernels.h and ncclAllReduce over the world group, on the backend's stream;
// each phase waits for its device work with the backend's deadline (wait_device), so a lost peer
// is a CallError naming the all-reduce, not a hang. Ran on one GPU; its all-reduce has not (see
// cuda_backend.h).
#pragma once

#include "kernels/common/comm.h"
#include "kernels/common/composite.h"
#include "kernels/cuda/descriptors.h"

namespace shardsim::kernels::cuda {

// REQUIRES: ctx and groups are the backend's (select_device succeeded on every rank).
[[nodiscard]] CompositeResult run_composite(const CompositeConfig& config, const Comm& world,
                                            const DeviceContext& ctx, NcclGroups& groups);

}  // namespace shardsim::kernels::cuda
