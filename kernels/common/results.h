// The self-describing samples document (reports/schemas/calibration-samples.schema.json):
//   {schema_version, complete, error, context: {...}, items: [...]}
// Every time in seconds, every size in bytes, every rate per second (SI).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kernels/common/comm.h"
#include "kernels/common/descriptor.h"
#include "kernels/common/timing_loop.h"

namespace shardsim::kernels {

inline constexpr int kSamplesSchemaVersion = 1;

// What the build knows about itself (compile definitions of the sweep library).
struct BuildInfo {
  std::string build_type;        // CMAKE_BUILD_TYPE / $<CONFIG>, e.g. "Release"
  std::string git_revision;      // `git describe --always --dirty` at configure time, or ""
  std::string shardsim_version;  // PROJECT_VERSION
  std::string compiler;          // e.g. "GCC 12.2.0"
};

// Context shared by every backend: host, cpu_model, logical_cpus, os, compiler, build_type,
// git_revision, shardsim_version, date_utc (ISO 8601), and
// mpi {library_version, standard_version, world_size, nodes, ranks_per_node}.
// ranks_per_node is the largest node's rank count (MPI_Comm_split_type SHARED).
// Collective over `world` (it gathers node ids).
[[nodiscard]] nlohmann::json base_context(const Comm& world, const BuildInfo& build);

// One entry of `items`: kind, name, params, runs_per_sample, samples_s, median_s,
// spread {min_s, max_s, mad_s}, work, derived, verified, verification.
//   derived: gemm {flops_per_second}; memory_bound and copy {bytes_per_second};
//   collective {algbw_bytes_per_second = S / median, busbw_bytes_per_second = algbw * factor};
//   launch {seconds_per_launch = median / launches, launches_per_second}.
[[nodiscard]] nlohmann::json item_json(const Descriptor& d, const Measurement& m);

[[nodiscard]] nlohmann::json samples_document(const nlohmann::json& context,
                                              const nlohmann::json& items, bool complete,
                                              const nlohmann::json& error);

// The temporary sibling write_json_file() writes first: "PATH.tmp.<pid>", the file name cut to
// fit the 255-byte name limit (found by review, 2026-11-29: a legal 245-byte -o was refused as
// "File name too long"). The sweep's other siblings (.partial, .rank<N>.error) keep their names:
// it refuses a samples name too long for them before measuring (sweep_steps.cc output_problem).
[[nodiscard]] std::string temporary_path(const std::string& path);

// Writes `doc` to `path` through a temporary sibling and a rename, so a reader never sees a half
// written file. Throws CallError("std::ofstream" / "std::rename", path) on failure.
void write_json_file(const std::string& path, const nlohmann::json& doc);

}  // namespace shardsim::kernels
