// A kernel backend (cpu, cuda): the context it adds to the samples document, its timer, and the
// descriptors of a sweep plan. The backend owns every resource its descriptors use (communicators,
// streams, handles), so it must outlive them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/common/comm.h"
#include "kernels/common/composite.h"
#include "kernels/common/descriptor.h"
#include "kernels/common/sweep_plan.h"

namespace shardsim::kernels {

class Backend {
 public:
  virtual ~Backend() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  // Backend part of the context: device, library versions (BLAS, cuBLAS, NCCL), timer.
  [[nodiscard]] virtual nlohmann::json context() const = 0;
  [[nodiscard]] virtual Timer& timer() = 0;
  // Every descriptor of `plan`, in the order they are measured. Identical on every rank.
  [[nodiscard]] virtual std::vector<Descriptor> descriptors(const SweepPlan& plan) = 0;
  // The composite training step of `shardsim validate` (composite.h) on this backend's kernels.
  // Collective over `world` (the backend's world).
  [[nodiscard]] virtual CompositeResult run_composite(const CompositeConfig& config,
                                                      const Comm& world) = 0;
};

}  // namespace shardsim::kernels
