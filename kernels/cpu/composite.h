// The composite workload of `shardsim validate` on the cpu backend (kernels/common/composite.h):
// the shared model (composite_model.h) on OpenBLAS cblas_sgemm, the C++ kernels of
// composite_ops.h and MPI_Allreduce, timed with a steady clock.
#pragma once

#include "kernels/common/comm.h"
#include "kernels/common/composite.h"

namespace shardsim::kernels::cpu {

using kernels::composite_parameters;
using kernels::CompositeConfig;
using kernels::CompositePhases;
using kernels::CompositeResult;

// Runs the workload on every rank of `world` in lockstep. Throws CallError on a failed MPI call
// or a cross-rank deadline; std::invalid_argument for a config that cannot run (names the field).
[[nodiscard]] CompositeResult run_composite(const CompositeConfig& config, const Comm& world);

}  // namespace shardsim::kernels::cpu
