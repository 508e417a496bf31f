#include "kernels/common/results.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "kernels/common/errors.h"
#include "simulator/core/sibling_path.h"

namespace shardsim::kernels {
namespace {

std::string host_name() {
  char buf[256] = {};
  return gethostname(buf, sizeof(buf) - 1) == 0 ? std::string(buf) : std::string("unknown");
}

// "model name : Intel(R) Xeon(R) ..." from /proc/cpuinfo (Linux); "unknown" elsewhere.
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

std::string os_name() {
  utsname u{};
  if (uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

std::string date_utc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32] = {};
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json mpi_context(const Comm& world) {
  const std::vector<int> node = world.node_of_rank();
  std::map<int, int> per_node;
  for (const int n : node) ++per_node[n];
  int most = 0;
  for (const auto& [id, count] : per_node) most = std::max(most, count);
  return {{"library_version", mpi_library_version()},
          {"standard_version", mpi_standard_version()},
          {"world_size", world.size()},
          {"nodes", per_node.size()},
          {"ranks_per_node", most}};
}

nlohmann::json derived(const Descriptor& d, double median) {
  switch (d.kind) {
    case Kind::kGemm:
      return {{"flops_per_second", d.work.flops / median}};
    case Kind::kMemoryBound:
    case Kind::kCopy:
      return {{"bytes_per_second", d.work.bytes / median}};
    case Kind::kCollective: {
      const double algbw = d.work.bytes / median;
      return {{"algbw_bytes_per_second", algbw},
              {"busbw_bytes_per_second", algbw * d.work.busbw_factor}};
    }
    case Kind::kLaunch:
      return {{"seconds_per_launch", median / d.work.launches},
              {"launches_per_second", d.work.launches / median}};
  }
  return nlohmann::json::object();
}

nlohmann::json work_json(const Work& w) {
  nlohmann::json j = nlohmann::json::object();
  if (w.flops > 0) j["flops"] = w.flops;
  if (w.bytes > 0) j["bytes"] = w.bytes;
  if (w.busbw_factor > 0) j["busbw_factor"] = w.busbw_factor;
  if (w.launches > 0) j["launches"] = w.launches;
  return j;
}

}  // namespace

nlohmann::json base_context(const Comm& world, const BuildInfo& build) {
  return {{"host", host_name()},
          {"cpu_model", cpu_model()},
          {"logical_cpus", std::thread::hardware_concurrency()},
          {"os", os_name()},
          {"compiler", build.compiler},
          {"build_type", build.build_type},
          {"git_revision", build.git_revision},
          {"shardsim_version", build.shardsim_version},
          {"date_utc", date_utc()},
          {"mpi", mpi_context(world)}};
}

nlohmann::json item_json(const Descriptor& d, const Measurement& m) {
  return {{"kind", kind_name(d.kind)},
          {"name", d.name},
          {"params", d.params},
          {"runs_per_sample", m.runs_per_sample},
          {"samples_s", m.samples_s},
          {"median_s", m.summary.median_s},
          {"spread",
           {{"min_s", m.summary.min_s}, {"max_s", m.summary.max_s}, {"mad_s", m.summary.mad_s}}},
          {"work", work_json(d.work)},
          {"derived", derived(d, m.summary.median_s)},
          {"verified", m.verification.ok},
          {"verification", m.verification.detail}};
}

nlohmann::json samples_document(const nlohmann::json& context, const nlohmann::json& items,
                                bool complete, const nlohmann::json& error) {
  return {{"schema_version", kSamplesSchemaVersion},
          {"complete", complete},
          {"error", error},
          {"context", context},
          {"items", items}};
}

std::string temporary_path(const std::string& path) {
  return sibling_path(path, ".tmp." + std::to_string(::getpid()));
}

void write_json_file(const std::string& path, const nlohmann::json& doc) {
  // A temporary named for this process: two runs writing the same path no longer share (and
  // rename away) one temporary (found by review, 2026-11-27).
  const std::string tmp = temporary_path(path);
  {
    std::ofstream out(tmp);
    out << doc.dump(1) << "\n";
    if (!out) throw CallError("std::ofstream", "cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    throw CallError("std::rename", "cannot move " + tmp + " to " + path);
  }
}

}  // namespace shardsim::kernels
