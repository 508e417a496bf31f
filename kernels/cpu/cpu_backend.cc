#include "kernels/cpu/cpu_backend.h"

#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "kernels/common/collectives.h"
#include "kernels/cpu/composite.h"
#include "kernels/cpu/descriptors.h"

namespace shardsim::kernels::cpu {
namespace {

// Ranks of `world` on this rank's node.
int ranks_on_my_node(const Comm& world) {
  const std::vector<int> node = world.node_of_rank();
  const int mine = node[static_cast<std::size_t>(world.rank())];
  return static_cast<int>(std::count(node.begin(), node.end(), mine));
}

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const Comm& world)
      : groups_(make_collective_groups(world)),
        blas_threads_(std::max(
            1, static_cast<int>(std::thread::hardware_concurrency()) / ranks_on_my_node(world))) {
    openblas_set_num_threads(blas_threads_);
  }

  std::string name() const override { return "cpu"; }

  nlohmann::json context() const override {
    return {{"backend", "cpu"},
            {"device", "cpu"},
            {"timer", timer_.name()},
            // the measuring host's RAM: `fit` gives the CPU "device" its share from this, not
            // from the RAM of the machine that fits (found by review, 2026-11-28)
            {"host_memory_bytes", double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE))},
            {"blas",
             {{"library", "OpenBLAS"},
              {"config", openblas_get_config()},
              {"threads_per_rank", blas_threads_}}}};
  }

  Timer& timer() override { return timer_; }

  std::vector<Descriptor> descriptors(const SweepPlan& plan) override {
    std::vector<Descriptor> out = copy_and_launch_descriptors(plan);
    for (auto* family : {&gemm_descriptors, &memory_bound_descriptors}) {
      std::vector<Descriptor> more = (*family)(plan);
      std::move(more.begin(), more.end(), std::back_inserter(out));
    }
    std::vector<Descriptor> coll = collective_descriptors(plan, groups_);
    std::move(coll.begin(), coll.end(), std::back_inserter(out));
    return out;
  }

  CompositeResult run_composite(const CompositeConfig& config, const Comm& world) override {
    return cpu::run_composite(config, world);
  }

 private:
  std::vector<CollectiveGroup> groups_;
  int blas_threads_;
  SteadyClockTimer timer_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const Comm& world) {
  return std::make_unique<CpuBackend>(world);
}

}  // namespace shardsim::kernels::cpu
