// shardsim-device-query: prints the visible CUDA devices and the CUDA / cuBLAS / NCCL versions.
//
// Usage: shardsim-device-query [--json] [--no-kernel-check]
// Exit codes (DESIGN.md): 0 ok; 1 the fill/verify kernel failed on some device; 2 bad usage;
// 3 runtime failure (no CUDA device, or a device could not be queried).
#include <iomanip>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kernels/cuda/device_query.h"
#include "simulator/core/units.h"

namespace {

namespace sc = shardsim::cuda;

constexpr int kSchemaVersion = 1;

struct Options {
  bool json = false;
  bool kernel_check = true;
};

constexpr std::string_view kUsage =
    "usage: shardsim-device-query [--json] [--no-kernel-check]\n"
    "  Lists visible CUDA devices and the CUDA driver/runtime, cuBLAS and NCCL versions.\n"
    "  --json             machine-readable output (SI units: bytes, Hz, bytes/s)\n"
    "  --no-kernel-check  skip the fill/verify kernel run on each device\n"
    "exit codes: 0 ok, 1 kernel check failed, 2 bad usage, 3 no CUDA device\n";

// Parses argv; returns std::nullopt (after printing why) on bad usage or --help.
std::optional<Options> parse_args(int argc, char** argv, int& exit_code) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--json") {
      opt.json = true;
    } else if (arg == "--no-kernel-check") {
      opt.kernel_check = false;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      exit_code = 0;
      return std::nullopt;
    } else {
      std::cerr << "error: unknown argument '" << arg << "'\n" << kUsage;
      exit_code = 2;
      return std::nullopt;
    }
  }
  return opt;
}

nlohmann::json version_json(const std::optional<sc::Version>& v, bool with_patch) {
  return v ? nlohmann::json(v->to_string(with_patch)) : nlohmann::json(nullptr);
}

nlohmann::json device_json(const sc::DeviceInfo& d) {
  const auto& bw = d.peak_memory_bandwidth_bytes_per_s;
  return {
      {"index", d.index},
      {"name", d.name},
      {"compute_capability", std::to_string(d.compute_capability_major) + "." +
                                 std::to_string(d.compute_capability_minor)},
      {"memory_bytes", d.memory_bytes},
      {"sm_count", d.sm_count},
      {"memory_clock_hz", d.memory_clock_hz},
      {"memory_bus_width_bits", d.memory_bus_width_bits},
      {"peak_memory_bandwidth_bytes_per_s", bw ? nlohmann::json(*bw) : nlohmann::json(nullptr)},
      {"kernel_check", {{"ok", d.kernel_check.ok}, {"message", d.kernel_check.message}}},
  };
}

nlohmann::json to_json(const sc::DeviceQuery& q) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : q.devices) devices.push_back(device_json(d));
  return {
      {"schema_version", kSchemaVersion},
      {"versions",
       {{"cuda_driver", version_json(q.versions.driver, false)},
        {"cuda_runtime", version_json(q.versions.runtime, false)},
        {"cublas", version_json(q.versions.cublas, true)},
        {"nccl", version_json(q.versions.nccl, true)}}},
      {"devices", devices},
  };
}

std::string or_unknown(const std::optional<sc::Version>& v, bool with_patch) {
  return v ? v->to_string(with_patch) : "unavailable";
}

void print_device(std::ostream& out, const sc::DeviceInfo& d) {
  out << "device " << d.index << ": " << d.name << "\n"
      << "  compute capability   " << d.compute_capability_major << "."
      << d.compute_capability_minor << "\n"
      << "  memory               " << d.memory_bytes << " bytes (" << std::fixed
      << std::setprecision(1) << static_cast<double>(d.memory_bytes) / shardsim::kGiB << " GiB)\n"
      << "  SMs                  " << d.sm_count << "\n"
      << "  memory clock         " << std::setprecision(3)
      << static_cast<double>(d.memory_clock_hz) / 1e9 << " GHz, bus " << d.memory_bus_width_bits
      << " bits\n";
  out << "  peak DRAM bandwidth  ";
  if (d.peak_memory_bandwidth_bytes_per_s) {
    out << std::setprecision(1) << *d.peak_memory_bandwidth_bytes_per_s / 1e9 << " GB/s\n";
  } else {
    out << "unavailable\n";
  }
  out << "  fill/verify kernel   "
      << (d.kernel_check.ok ? (d.kernel_check.message.empty() ? "ok" : d.kernel_check.message)
                            : "FAILED: " + d.kernel_check.message)
      << "\n";
}

void print_text(std::ostream& out, const sc::DeviceQuery& q) {
  out << "CUDA driver " << or_unknown(q.versions.driver, false) << ", runtime "
      << or_unknown(q.versions.runtime, false) << ", cuBLAS " << or_unknown(q.versions.cublas, true)
      << ", NCCL " << or_unknown(q.versions.nccl, true) << "\n";
  for (const auto& d : q.devices) print_device(out, d);
}

}  // namespace

int main(int argc, char** argv) {
  int exit_code = 0;
  const std::optional<Options> opt = parse_args(argc, argv, exit_code);
  if (!opt) return exit_code;

  const sc::DeviceQuery q = sc::query_devices(opt->kernel_check);
  if (!q.ok()) {
    std::cerr << "error: " << q.error << "\n";
    return 3;
  }
  if (opt->json) {
    std::cout << to_json(q).dump(2) << "\n";
  } else {
    print_text(std::cout, q);
  }
  for (const auto& d : q.devices) {
    if (!d.kernel_check.ok) return 1;
  }
  return 0;
}
