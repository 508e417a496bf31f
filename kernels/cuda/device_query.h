// Discovery of the visible CUDA devices and of the CUDA / cuBLAS / NCCL versions in use.
//
// This header is plain C++ (no CUDA headers), so host code compiled by the C++ compiler can call
// it; device_query.cu holds everything that touches the CUDA runtime. Errors are values: nothing
// here throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardsim::cuda {

// A library version split into its parts (e.g. CUDA 13.0 -> {13, 0, 0}).
struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
  // "13.0" when patch is not meaningful (CUDA driver/runtime), "2.28.9" otherwise.
  [[nodiscard]] std::string to_string(bool with_patch = true) const;
};

// Versions of the software stack. Every field is best effort: std::nullopt when the query failed
// (e.g. no driver installed) or the library was not linked (NCCL).
struct StackVersions {
  std::optional<Version> driver;   // highest CUDA version the installed driver supports
  std::optional<Version> runtime;  // CUDA runtime (libcudart) this binary runs against
  std::optional<Version> cublas;   // from cublasGetProperty (needs no device)
  std::optional<Version> nccl;     // from ncclGetVersion (needs no device)
};

// Result of running the fill/verify kernel on one device.
struct KernelCheck {
  bool ok = false;
  // Empty when ok ("skipped" when the check was not requested); otherwise the failing CUDA call
  // and its error, or the first mismatching element.
  std::string message;
};

// Static properties of one visible device.
struct DeviceInfo {
  int index = 0;  // CUDA ordinal, as used by cudaSetDevice
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  std::uint64_t memory_bytes = 0;  // total global memory
  int sm_count = 0;
  std::int64_t memory_clock_hz = 0;  // peak memory clock; 0 when not reported
  int memory_bus_width_bits = 0;     // 0 when not reported
  // Theoretical peak DRAM bandwidth = 2 (double data rate) * memory clock * bus width / 8, in
  // bytes per second. std::nullopt when the clock or bus width is not reported.
  std::optional<double> peak_memory_bandwidth_bytes_per_s;
  KernelCheck kernel_check;
};

// Everything query_devices() found. `error` is empty on success; on failure it holds a message
// and `devices` is empty. When no device can be used the message contains "no CUDA device"
// followed by the CUDA error name and string in parentheses.
struct DeviceQuery {
  std::string error;
  StackVersions versions;  // filled (best effort) on success and failure alike
  std::vector<DeviceInfo> devices;
  [[nodiscard]] bool ok() const { return error.empty(); }
};

// Lists the visible devices and the software stack.
// When run_kernel_check is true, also launches a small fill/verify kernel on every device
// (allocates 4 MiB per device) and records the outcome in DeviceInfo::kernel_check.
[[nodiscard]] DeviceQuery query_devices(bool run_kernel_check = true);

}  // namespace shardsim::cuda
