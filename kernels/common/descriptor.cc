#include "kernels/common/descriptor.h"

#include <chrono>

namespace shardsim::kernels {

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::kGemm:
      return "gemm";
    case Kind::kMemoryBound:
      return "memory_bound";
    case Kind::kCollective:
      return "collective";
    case Kind::kCopy:
      return "copy";
    case Kind::kLaunch:
      return "launch";
  }
  return "gemm";
}

double SteadyClockTimer::time(Instance& instance, int times) {
  const auto start = std::chrono::steady_clock::now();
  instance.run(times);
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(stop - start).count();
}

}  // namespace shardsim::kernels
