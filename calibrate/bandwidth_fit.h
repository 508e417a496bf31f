// Memory-bound and host-copy bandwidth from a published bandwidth table (BabelStream kernels and
// nvbandwidth copies, e.g. the Azure/AI-benchmarking-guide results): columns gpu,test,value,unit
// ('#' lines are the source header). Pure functions; the caller passes the file's text.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace shardsim::calibrate {

// One measured rate: `test` is one of bandwidth_tests(), value converted to bytes/s.
struct BandwidthMeasurement {
  std::string device;
  std::string test;
  double bytes_per_second = 0;
  int line = 0;
};

// babelstream_{copy,mul,add,triad,dot}, nvbandwidth_{host_to_device,device_to_host,
// device_to_device_read}.
[[nodiscard]] const std::vector<std::string>& bandwidth_tests();

// Rows whose gpu column matches `device` (calibrate::device_matches: '|'-separated parts, ""
// keeps all; rows of more than one device left is an error). Units: TB/s (1e12 B/s), GB/s
// (1e9), MB/s (1e6). An unknown test or unit, a non-positive value or a missing column is an
// error naming "FILE:LINE".
[[nodiscard]] std::variant<std::vector<BandwidthMeasurement>, std::string> parse_bandwidth_csv(
    std::string_view text, const std::string& file, const std::string& device);

struct BandwidthFit {
  // BabelStream triad / hbm_reference (the datasheet HBM bandwidth of the measured device);
  // 0 when the table has no triad row. Triad (a[i] = b[i] + s c[i]: two reads, one write) is
  // the pattern of the residual adds, bias-dropout-add and the optimizer's streaming updates.
  double memory_bound_efficiency = 0;
  double triad_bytes_per_second = 0;
  int triad_line = 0;
  // Host link per direction such that the model's copy time bytes / (pcie x
  // kPcieCopyEfficiency) (simulator/cost/collective.h) reproduces the best measured host copy:
  //   pcie = max(host_to_device, device_to_host) / kPcieCopyEfficiency; 0 when neither row.
  double pcie_bytes_per_second = 0;
  double copy_bytes_per_second = 0;  // the best measured host copy
  std::string copy_test;             // its test name
  int copy_line = 0;
};

// REQUIRES: hbm_reference > 0. Error (naming the file and line) when triad exceeds it.
[[nodiscard]] std::variant<BandwidthFit, std::string> fit_bandwidth(
    const std::vector<BandwidthMeasurement>& rows, double hbm_reference, const std::string& file);

}  // namespace shardsim::calibrate
