#include "reports/memory_report.h"

#include <fmt/format.h>

#include "reports/report_common.h"
#include "simulator/core/units.h"

namespace shardsim {
namespace {

nlohmann::json rank_json(const RankMemory& r) {
  nlohmann::json terms = nlohmann::json::array();
  for (const auto& t : r.terms)
    terms.push_back({{"name", t.name},
                     {"category", category_name(t.category)},
                     {"bytes", t.bytes},
                     {"note", t.note}});
  return {{"pp_stage", r.pp_stage},
          {"layers", r.layers},
          {"local_parameters", r.local_params},
          {"in_flight_microbatches", r.in_flight_microbatches},
          {"params_bytes", r.params_bytes},
          {"grads_bytes", r.grads_bytes},
          {"optimizer_bytes", r.optimizer_bytes},
          {"activations_bytes", r.activations_bytes},
          {"overhead_bytes", r.overhead_bytes},
          {"total_bytes", r.total_bytes},
          {"host_bytes", r.host_bytes},
          {"terms", terms}};
}

double gib(double bytes) {
  return bytes / kGiB;
}

}  // namespace

void add_memory_json(const MemoryEstimate& e, nlohmann::json& report) {
  report["model"] = {{"parameters", e.parameters.total},
                     {"active_parameters", e.parameters.active},
                     {"embedding_parameters", e.parameters.embedding}};
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& r : e.ranks) ranks.push_back(rank_json(r));
  report["memory"] = {{"capacity_bytes", e.capacity_bytes},
                      {"peak_bytes", e.peak_bytes},
                      {"peak_pp_stage", e.peak_stage},
                      {"fits", e.fits},
                      {"reason", e.reason},
                      {"host_bytes", e.host_bytes_per_node},
                      {"ranks", ranks}};
}

nlohmann::json memory_report_json(const Estimate& est) {
  if (!est.plan) return infeasible_report(est);
  nlohmann::json report = report_header(est);
  add_memory_json(*est.memory, report);
  report["feasibility"] = feasibility_json(est.infeasible);
  return report;
}

std::string memory_report_text(const Estimate& est) {
  if (!est.plan) return infeasible_text(est);
  const MemoryEstimate& e = *est.memory;
  std::string out = describe_setup(est);
  out += fmt::format("params    {:.3f} B total ({:.3f} B active per token)\n\n",
                     e.parameters.total / 1e9, e.parameters.active / 1e9);
  out += "Per-GPU memory by pipeline stage, in GiB (2^30 bytes):\n";
  out += fmt::format("{:>5} {:>6} {:>9} {:>9} {:>9} {:>11} {:>9} {:>9} {:>9} {:>9}  {}\n", "stage",
                     "layers", "params", "grads", "optimizer", "activations", "overhead", "total",
                     "capacity", "headroom", "fits");
  for (const auto& r : e.ranks) {
    out += fmt::format(
        "{:>5} {:>6} {:>9.2f} {:>9.2f} {:>9.2f} {:>11.2f} {:>9.2f} {:>9.2f} {:>9.2f} "
        "{:>9.2f}  {}\n",
        r.pp_stage, r.layers, gib(r.params_bytes), gib(r.grads_bytes), gib(r.optimizer_bytes),
        gib(r.activations_bytes), gib(r.overhead_bytes), gib(r.total_bytes), gib(e.capacity_bytes),
        gib(e.capacity_bytes - r.total_bytes), r.total_bytes <= e.capacity_bytes ? "yes" : "NO");
  }
  out += fmt::format("\npeak {:.2f} GiB ({:.2f} GB) on stage {} of {:.2f} GiB ({:.2f} GB): {}\n",
                     gib(e.peak_bytes), e.peak_bytes / kGB, e.peak_stage, gib(e.capacity_bytes),
                     e.capacity_bytes / kGB, e.fits ? "fits" : "does NOT fit — " + e.reason);
  if (e.host_bytes_per_node > 0)
    out +=
        fmt::format("host memory for offloaded states: {:.2f} GiB ({:.2f} GB) per node{}\n",
                    gib(e.host_bytes_per_node), e.host_bytes_per_node / kGB,
                    est.input().cluster.host_memory_bytes > 0
                        ? fmt::format(" of {:.2f} GiB", gib(est.input().cluster.host_memory_bytes))
                        : std::string(" (not checked: cluster.host_memory_bytes not given)"));
  const auto& peak = e.ranks.at(std::size_t(e.peak_stage));
  out += fmt::format("\nTerms of stage {} (GiB):\n", peak.pp_stage);
  for (const auto& t : peak.terms)
    out += fmt::format("  {:<36} {:>9.3f}  {}\n", t.name, gib(t.bytes), t.note);
  return out + warnings_text(est);
}

}  // namespace shardsim
