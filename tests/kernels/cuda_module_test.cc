// The cuda backend module (kernels/cuda/cuda_backend.h, kernels/sweep/cuda_module.h): this test
// binary links the sweep, as shardsim does, and must not have a CUDA library mapped until the
// module is loaded; loading gives the table of this build, whose termination-signal variable is
// the host's.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "kernels/common/comm.h"
#include "kernels/sweep/cuda_module.h"

namespace shardsim::kernels {
namespace {

bool cuda_library_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  const std::string s = text.str();
  return s.find("libcublas") != std::string::npos || s.find("libcudart") != std::string::npos ||
         s.find("libnccl") != std::string::npos;
}

TEST(CudaModule, LoadsOnDemandAndSharesTheTerminationSignal) {
  ASSERT_EQ(setenv("SHARDSIM_CUDA_BACKEND", SHARDSIM_CUDA_MODULE, 1), 0);
  EXPECT_EQ(cuda_module_path(), SHARDSIM_CUDA_MODULE);
  // A relative path is the working directory's (dlopen alone would search the library path).
  ASSERT_EQ(setenv("SHARDSIM_CUDA_BACKEND", "rel/libx.so", 1), 0);
  EXPECT_EQ(cuda_module_path(), (std::filesystem::current_path() / "rel/libx.so").string());
  ASSERT_EQ(setenv("SHARDSIM_CUDA_BACKEND", SHARDSIM_CUDA_MODULE, 1), 0);
  EXPECT_FALSE(cuda_library_mapped()) << "a CUDA library was loaded before the module";

  std::string error;
  const cuda::ModuleEntry* m = load_cuda_module(error);
  ASSERT_NE(m, nullptr) << error;
  EXPECT_EQ(m->abi, cuda::kModuleAbi);
  EXPECT_TRUE(cuda_library_mapped());
  EXPECT_EQ(load_cuda_module(error), m) << "loaded once per process";

  // A device (exit-0 machines) or the "no CUDA device (...)" message the CLI prints.
  const std::string device = m->select_device(0);
  EXPECT_TRUE(device.empty() || device.rfind("no CUDA device (", 0) == 0) << device;

  // A signal recorded by the host's handler is what the module's waits see, and clearing it
  // clears it there too: one variable, not a copy per image.
  EXPECT_EQ(m->termination_signal(), 0);
  note_termination_signal(SIGTERM);
  EXPECT_EQ(m->termination_signal(), SIGTERM);
  clear_termination_signal();
  EXPECT_EQ(m->termination_signal(), 0);
  unsetenv("SHARDSIM_CUDA_BACKEND");
}

// A module whose build id is not this binary's is refused before anything in it is called (its
// function pointers are null: a call would crash), naming both builds; a missing file names the
// path and the loader's reason.
TEST(CudaModule, AModuleOfAnotherBuildOrNoneIsRefused) {
  std::string error;
  EXPECT_EQ(load_cuda_module_from(SHARDSIM_FAKE_CUDA_MODULE, error), nullptr);
  EXPECT_NE(
      error.find("CUDA backend unavailable: cannot load " + std::string(SHARDSIM_FAKE_CUDA_MODULE) +
                 " (built by another shardsim build: module of \"another build\""),
      std::string::npos)
      << error;
  error.clear();
  EXPECT_EQ(load_cuda_module_from("/nonexistent/libshardsim_cuda_backend.so", error), nullptr);
  EXPECT_NE(error.find("cannot load /nonexistent/libshardsim_cuda_backend.so (/nonexistent/"
                       "libshardsim_cuda_backend.so: cannot open shared object file"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace shardsim::kernels
