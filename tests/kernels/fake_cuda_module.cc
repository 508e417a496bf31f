// A cuda backend module of "another build" for tests/kernels/cuda_module_test.cc: the entry point
// and interface number of this tree's, with a build id no binary carries. Its functions are never
// called: the loader must refuse it on the id.
#include "kernels/cuda/cuda_backend.h"

extern "C" __attribute__((visibility("default"))) const shardsim::kernels::cuda::ModuleEntry*
shardsim_cuda_backend_module() {
  static const shardsim::kernels::cuda::ModuleEntry entry{
      shardsim::kernels::cuda::kModuleAbi, "another build", nullptr, nullptr, nullptr, nullptr};
  return &entry;
}
