// CUDA side of device_query.h: runtime/cuBLAS/NCCL version queries, device properties and a
// fill/verify kernel that proves device code for this GPU was compiled and runs.
#include "kernels/cuda/device_query.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <library_types.h>
#ifdef SHARDSIM_HAVE_NCCL
#include <nccl.h>
#endif

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace shardsim::cuda {
namespace {

constexpr std::size_t kCheckElements = std::size_t{1} << 20;  // 4 MiB of uint32
constexpr std::uint32_t kCheckSeed = 0x5eedu;

// "cudaErrorNoDevice: no CUDA-capable device is detected"
std::string describe(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
}

// CUDA encodes versions as 1000 * major + 10 * minor (13000 -> 13.0).
Version from_cuda_code(int code) {
  return {code / 1000, (code % 1000) / 10, 0};
}

// NCCL >= 2.9 encodes 10000 * major + 100 * minor + patch (22809 -> 2.28.9); older releases
// 1000 * major + 100 * minor + patch (2708 -> 2.7.8).
[[maybe_unused]] Version from_nccl_code(int code) {
  if (code >= 10000) return {code / 10000, (code % 10000) / 100, code % 100};
  return {code / 1000, (code % 1000) / 100, code % 100};
}

StackVersions query_versions() {
  StackVersions v;
  int code = 0;
  // cudaDriverGetVersion succeeds with 0 when no driver is installed.
  if (cudaDriverGetVersion(&code) == cudaSuccess && code > 0) v.driver = from_cuda_code(code);
  if (cudaRuntimeGetVersion(&code) == cudaSuccess && code > 0) v.runtime = from_cuda_code(code);
  Version cublas;
  if (cublasGetProperty(MAJOR_VERSION, &cublas.major) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(MINOR_VERSION, &cublas.minor) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(PATCH_LEVEL, &cublas.patch) == CUBLAS_STATUS_SUCCESS) {
    v.cublas = cublas;
  }
#ifdef SHARDSIM_HAVE_NCCL
  if (ncclGetVersion(&code) == ncclSuccess && code > 0) v.nccl = from_nccl_code(code);
#endif
  return v;
}

// The value the fill kernel writes at index i (a multiplicative hash, so misplaced writes show).
__host__ __device__ std::uint32_t pattern(std::size_t i, std::uint32_t seed) {
  return static_cast<std::uint32_t>(i) * 2654435761u + seed;
}

// Grid-stride loop: out[i] = pattern(i, seed) for i < n.
__global__ void fill_kernel(std::uint32_t* out, std::size_t n, std::uint32_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = pattern(i, seed);
  }
}

// Owns one device allocation; frees it on scope exit.
struct DeviceBuffer {
  std::uint32_t* ptr = nullptr;
  ~DeviceBuffer() {
    if (ptr != nullptr) cudaFree(ptr);
  }
};

KernelCheck failed(const char* step, cudaError_t err) {
  return {false, std::string(step) + " failed: " + describe(err)};
}

// Fills kCheckElements on the current device, copies them back and compares on the host.
KernelCheck run_fill_check() {
  DeviceBuffer buf;
  const std::size_t bytes = kCheckElements * sizeof(std::uint32_t);
  if (cudaError_t e = cudaMalloc(&buf.ptr, bytes); e != cudaSuccess) return failed("cudaMalloc", e);
  fill_kernel<<<256, 256>>>(buf.ptr, kCheckElements, kCheckSeed);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return failed("fill_kernel launch", e);
  std::vector<std::uint32_t> host(kCheckElements);
  if (cudaError_t e = cudaMemcpy(host.data(), buf.ptr, bytes, cudaMemcpyDeviceToHost);
      e != cudaSuccess) {
    return failed("cudaMemcpy", e);
  }
  for (std::size_t i = 0; i < kCheckElements; ++i) {
    if (host[i] != pattern(i, kCheckSeed)) {
      return {false, "fill_kernel wrote " + std::to_string(host[i]) + " at index " +
                         std::to_string(i) + ", expected " +
                         std::to_string(pattern(i, kCheckSeed))};
    }
  }
  return {true, ""};
}

// Peak DRAM bandwidth in bytes/s: 2 transfers per clock * clock (Hz) * bus width (bits) / 8.
std::optional<double> peak_bandwidth(std::int64_t clock_hz, int bus_bits) {
  if (clock_hz <= 0 || bus_bits <= 0) return std::nullopt;
  return 2.0 * static_cast<double>(clock_hz) * bus_bits / 8.0;
}

// Reads the properties of device `index`; returns a non-empty error message on failure.
std::string describe_device(int index, DeviceInfo& info) {
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, index); e != cudaSuccess) {
    return "cudaGetDeviceProperties(" + std::to_string(index) + ") failed: " + describe(e);
  }
  info.index = index;
  info.name = prop.name;
  info.compute_capability_major = prop.major;
  info.compute_capability_minor = prop.minor;
  info.memory_bytes = prop.totalGlobalMem;
  info.sm_count = prop.multiProcessorCount;
  int clock_khz = 0;  // attributes: cudaDeviceProp::memoryClockRate was removed in CUDA 13
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, index) == cudaSuccess) {
    info.memory_clock_hz = std::int64_t{clock_khz} * 1000;
  }
  if (cudaDeviceGetAttribute(&info.memory_bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, index) !=
      cudaSuccess) {
    info.memory_bus_width_bits = 0;
  }
  info.peak_memory_bandwidth_bytes_per_s =
      peak_bandwidth(info.memory_clock_hz, info.memory_bus_width_bits);
  return "";
}

// Runs the fill check on device `index`, restoring the caller's current device afterwards.
KernelCheck check_device(int index) {
  int previous = 0;
  cudaGetDevice(&previous);
  if (cudaError_t e = cudaSetDevice(index); e != cudaSuccess) return failed("cudaSetDevice", e);
  KernelCheck check = run_fill_check();
  cudaSetDevice(previous);
  return check;
}

}  // namespace

std::string Version::to_string(bool with_patch) const {
  std::string s = std::to_string(major) + "." + std::to_string(minor);
  if (with_patch) s += "." + std::to_string(patch);
  return s;
}

DeviceQuery query_devices(bool run_kernel_check) {
  DeviceQuery q;
  q.versions = query_versions();
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    q.error = "no CUDA device (" + describe(err) + ")";
    return q;
  }
  if (count == 0) {
    q.error = "no CUDA device (cudaGetDeviceCount found 0 devices; " + describe(err) + ")";
    return q;
  }
  q.devices.resize(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    DeviceInfo& info = q.devices[static_cast<std::size_t>(i)];
    if (std::string e = describe_device(i, info); !e.empty()) {
      q.devices.clear();
      q.error = e;
      return q;
    }
    info.kernel_check = run_kernel_check ? check_device(i) : KernelCheck{true, "skipped"};
  }
  return q;
}

}  // namespace shardsim::cuda
