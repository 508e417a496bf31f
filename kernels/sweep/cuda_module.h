// Loading the CUDA backend module (kernels/cuda/cuda_backend.h says why it is one).
#pragma once

#include <string>

#include "kernels/cuda/cuda_backend.h"

namespace shardsim::kernels {

// Where the module is looked for: $SHARDSIM_CUDA_BACKEND when set and not empty (a relative path
// from the working directory), otherwise kModuleFile in the directory of this process's
// executable.
[[nodiscard]] std::string cuda_module_path();

// The module's entry table, loaded once per process and never unloaded (backends and CUDA state
// live in it until exit); its termination-signal variable is the host's (comm.h). nullptr with
// `error` set ("CUDA backend unavailable: cannot load <path> (<why>) ...") when the file is
// missing, a library it needs (CUDA runtime, cuBLAS, NCCL) is not installed, or it is of another
// build (cuda::ModuleEntry).
[[nodiscard]] const cuda::ModuleEntry* load_cuda_module(std::string& error);

// The same from `path`, each call loading afresh (dlopen counts references): load_cuda_module's
// work, and how tests load a module of another build.
[[nodiscard]] const cuda::ModuleEntry* load_cuda_module_from(const std::string& path,
                                                             std::string& error);

}  // namespace shardsim::kernels
