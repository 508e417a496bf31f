// The field tables of the hardware profile JSON, one per section (field_table.h explains how the
// reader, writer and schema use them). Sections: GPU top level, peak_flops_per_second, host,
// compute (+ gemm_points, memory_bound_points), node, network (+ fitted_collectives), provenance
// (+ sources, fit_ranges, residuals).
#pragma once

#include "simulator/hardware/field_table.h"
#include "simulator/hardware/hardware.h"

namespace shardsim {

[[nodiscard]] const Table<GpuProfile>& gpu_profile_table();
[[nodiscard]] const Table<PeakFlops>& peak_flops_table();
[[nodiscard]] const Table<GpuProfile>& host_table();
[[nodiscard]] const Table<ComputeModel>& compute_table();
[[nodiscard]] const Table<GemmPoint>& gemm_point_table();
[[nodiscard]] const Table<MemoryBoundPoint>& memory_bound_point_table();
[[nodiscard]] const Table<AttentionPoint>& attention_point_table();
[[nodiscard]] const Table<GpuProfile>& node_table();
[[nodiscard]] const Table<NetworkConfig>& network_table();
[[nodiscard]] const Table<FittedCollective>& fitted_collective_table();
[[nodiscard]] const Table<Provenance>& provenance_table();
[[nodiscard]] const Table<ProvenanceSource>& provenance_source_table();
[[nodiscard]] const Table<FitRange>& fit_range_table();

// Cross-field checks run after a table was read.
void check_compute(const ComputeModel& c, const std::string& path, Diagnostics& d);
void check_peaks(const PeakFlops& p, const std::string& path, Diagnostics& d);
void check_network(const NetworkConfig& n, const std::string& path, Diagnostics& d);

}  // namespace shardsim
