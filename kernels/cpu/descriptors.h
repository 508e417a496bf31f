// The cpu backend's descriptor families (one file each). Internal to kernels/cpu.
#pragma once

#include <vector>

#include "kernels/common/collectives.h"
#include "kernels/common/descriptor.h"
#include "kernels/common/sweep_plan.h"

namespace shardsim::kernels::cpu {

[[nodiscard]] std::vector<Descriptor> gemm_descriptors(const SweepPlan& plan);
[[nodiscard]] std::vector<Descriptor> memory_bound_descriptors(const SweepPlan& plan);
[[nodiscard]] std::vector<Descriptor> copy_and_launch_descriptors(const SweepPlan& plan);
// REQUIRES: `groups` outlives the descriptors.
[[nodiscard]] std::vector<Descriptor> collective_descriptors(
    const SweepPlan& plan, const std::vector<CollectiveGroup>& groups);

}  // namespace shardsim::kernels::cpu
