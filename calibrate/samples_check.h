// The checks a calibration samples document (reports/schemas/calibration-samples.schema.json)
// passes before any fit reads it (profile_fit.h), each refusal naming the file and the item.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace shardsim::calibrate {

// Checks what the fits read: schema_version 1; context.backend.backend cpu or cuda;
// context.mpi.ranks_per_node a whole number from 1 to 2^20 and context.mpi.world_size one from
// there to 2^24; context.backend.host_memory_bytes, when given, 1 to 1e14 B per rank on a node;
// context.date_utc, when given, an ISO 8601 date; host and cpu_model strings; each item's kind
// one of gemm, memory_bound, collective, copy, launch, with the value its fit reads above 0 (gemm
// derived.flops_per_second; memory_bound and copy work.bytes and derived.bytes_per_second; launch
// derived.seconds_per_launch; collective params.bytes and median_s, the latter at least 1 ns);
// the keys it is fitted by (gemm dtype and whole m, n, k up to 1e9; a memory kernel class as op;
// a copy direction; collective op and whole ranks, ranks_per_node up to 2^20, ranks at most the
// world size); no measurement twice (keyed as the fit keys it: measurement_key in
// samples_check.cc); params and derived objects; each item's median_s above 0 and its derived rate
// its work over median_s (a GEMM's work 2 m n k; a collective's work.bytes its params.bytes), to a
// relative 1e-9; and no item with verified: false (a kernel whose result was wrong measured
// something else; calibrate writes no profile from such a sweep either). Throws
// std::invalid_argument "FILE:
// ...".
void check_samples(const nlohmann::json& samples, const std::string& file);

}  // namespace shardsim::calibrate
