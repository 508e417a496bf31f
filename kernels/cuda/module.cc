// The entry point of libshardsim_cuda_backend.so (cuda_backend.h says why the backend is a module).
#include "kernels/common/comm.h"
#include "kernels/cuda/cuda_backend.h"

extern "C" __attribute__((visibility("default"))) const shardsim::kernels::cuda::ModuleEntry*
shardsim_cuda_backend_module() {
  namespace k = shardsim::kernels;
  static const k::cuda::ModuleEntry entry{k::cuda::kModuleAbi,          SHARDSIM_MODULE_BUILD_ID,
                                          &k::cuda::select_device,      &k::cuda::make_cuda_backend,
                                          &k::share_termination_signal, &k::termination_signal};
  return &entry;
}
