#include "kernels/sweep/cuda_module.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "kernels/common/comm.h"

namespace shardsim::kernels {

std::string cuda_module_path() {
  // A relative path is taken from the working directory, as a user means it: dlopen would
  // search the library path for a bare name (found by review, 2026-11-29).
  if (const char* env = std::getenv("SHARDSIM_CUDA_BACKEND"); env != nullptr && *env != '\0') {
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(env, ec);
    return ec ? std::string(env) : absolute.string();
  }
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  // Without /proc, the bare name: dlopen then searches LD_LIBRARY_PATH and the system's paths.
  if (ec) return cuda::kModuleFile;
  return (exe.parent_path() / cuda::kModuleFile).string();
}

namespace {

struct Loaded {
  const cuda::ModuleEntry* entry = nullptr;
  std::string error;
};

Loaded load(const std::string& path) {
  const auto fail = [&](const std::string& why) {
    return Loaded{nullptr,
                  "CUDA backend unavailable: cannot load " + path + " (" + why +
                      "); it is built beside shardsim when nvcc is found, and is found there or at "
                      "$SHARDSIM_CUDA_BACKEND"};
  };
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return fail(why != nullptr ? why : "dlopen failed");
  }
  using EntryFn = const cuda::ModuleEntry* (*)();
  // POSIX dlsym returns an object pointer; converting it to a function pointer is how it is used.
  const auto fn = reinterpret_cast<EntryFn>(dlsym(handle, cuda::kModuleSymbol));
  if (fn == nullptr) return fail(std::string("no symbol ") + cuda::kModuleSymbol);
  const cuda::ModuleEntry* entry = fn();
  // The interface number first: only when it matches is the rest of the table laid out as here.
  if (entry == nullptr || entry->abi != cuda::kModuleAbi) {
    return fail("built by another shardsim: module interface " +
                (entry == nullptr ? std::string("unknown") : std::to_string(entry->abi)) +
                ", this binary's " + std::to_string(cuda::kModuleAbi) +
                "; use the module of this binary's build");
  }
  if (std::string_view(entry->build) != SHARDSIM_MODULE_BUILD_ID) {
    return fail(std::string("built by another shardsim build: module of \"") + entry->build +
                "\", this binary of \"" + SHARDSIM_MODULE_BUILD_ID +
                "\" (the git revision when CMake configured, and the build folder); use the module "
                "of this binary's build");
  }
  entry->share_termination_signal(termination_signal_slot());
  return {entry, ""};
}

}  // namespace

const cuda::ModuleEntry* load_cuda_module_from(const std::string& path, std::string& error) {
  const Loaded loaded = load(path);
  if (loaded.entry == nullptr) error = loaded.error;
  return loaded.entry;
}

const cuda::ModuleEntry* load_cuda_module(std::string& error) {
  // Once per process (thread-safe initialisation).
  static const Loaded loaded = load(cuda_module_path());
  if (loaded.entry == nullptr) error = loaded.error;
  return loaded.entry;
}

}  // namespace shardsim::kernels
