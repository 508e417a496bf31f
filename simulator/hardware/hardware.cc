// Hardware profile reading, writing and schema, all driven by the field tables of
// hardware_tables.cc; cross-field checks below.
#include "simulator/hardware/hardware.h"

#include <fmt/format.h>

#include <tuple>

#include "simulator/hardware/hardware_tables.h"

namespace shardsim {

double PeakFlops::for_dtype(Dtype d) const {
  switch (d) {
    case Dtype::kFp32:
      return fp32;
    case Dtype::kFp16:
      return fp16;
    case Dtype::kBf16:
      return bf16;
    case Dtype::kFp8:
      return fp8 > 0 ? fp8 : bf16;
    case Dtype::kTf32:
      return tf32 > 0 ? tf32 : fp32;
  }
  return fp32;
}

namespace {

// No two points of one (kernel, mask, head_dim, seq): the lookup would use the first and hide
// the other (a refit appending to a fitted profile).
void check_attention_points(const ComputeModel& c, const std::string& path, Diagnostics& d) {
  const auto& points = c.attention_points;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (p.kernel.empty())
      d.error(fmt::format("{}/attention_points/{}/kernel", path, i),
              "must name the implementation measured");
    for (std::size_t j = 0; j < i; ++j) {
      const auto& q = points[j];
      if (q.kernel == p.kernel && q.causal == p.causal && q.head_dim == p.head_dim &&
          q.seq == p.seq) {
        d.error(fmt::format("{}/attention_points/{}", path, i),
                fmt::format("repeats point {} ({}, causal {}, head_dim {:g}, seq {:g})", j,
                            p.kernel, p.causal, p.head_dim, p.seq));
        break;
      }
    }
  }
}

}  // namespace

// An optional peak is 0 (no such tensor cores) or at least 1 FLOP/s, as fp16 and fp32 must be
// (found by review, 2026-11-28: bf16 at 1e-300 FLOP/s gave an infinite step and NaN shares).
void check_peaks(const PeakFlops& p, const std::string& path, Diagnostics& d) {
  for (const auto& [value, key] : {std::pair{p.tf32, "tf32"}, {p.bf16, "bf16"}, {p.fp8, "fp8"}})
    if (value > 0 && value < 1)
      d.error(pointer_join(path, key),
              fmt::format("must be 0 (no such tensor cores) or >= 1 FLOP/s, got {:g}", value));
}

void check_compute(const ComputeModel& c, const std::string& path, Diagnostics& d) {
  if (c.kind == "measured" && c.gemm_points.empty())
    d.error(pointer_join(path, "gemm_points"),
            "is required when kind is \"measured\" (at least one measured GEMM)");
  const auto& points = c.memory_bound_points;
  for (std::size_t i = 0; i < points.size(); ++i)
    for (std::size_t j = i; j-- > 0;)
      if (points[j].kernel == points[i].kernel) {
        if (points[i].bytes <= points[j].bytes)
          d.error(fmt::format("{}/memory_bound_points/{}/bytes", path, i),
                  fmt::format("must be larger than the previous {} point's bytes ({:g}), got {:g}",
                              points[i].kernel.empty() ? "generic" : points[i].kernel,
                              points[j].bytes, points[i].bytes));
        break;
      }
  check_attention_points(c, path, d);
}

double fitted_bus_factor(const std::string& op, int ranks) {
  const double n = ranks;
  if (op == "all_reduce") return 2 * (n - 1) / n;
  if (op == "reduce_scatter" || op == "all_gather" || op == "alltoall") return (n - 1) / n;
  return 1;
}

namespace {

// Two entries of one (op, ranks, ranks_per_node) are segments of one curve when both record a
// size range (max_bytes > 0) and the ranges do not overlap (simulator/cost/collective.h).
bool disjoint_segments(const FittedCollective& a, const FittedCollective& b) {
  if (a.max_bytes <= 0 || b.max_bytes <= 0) return false;
  return a.max_bytes < b.min_bytes || b.max_bytes < a.min_bytes;
}

// A later segment with a negative intercept: its line, increasing in size, must be positive at
// its smallest size, i.e. at min_bytes (and so over its whole range):
//   alpha_s + bus_factor(op, ranks) * min_bytes / busbw_bytes_per_second > 0.
// Below min_bytes (in the gap the segment rule gives it) collective_cost scales that time down in
// proportion to size, so a non-positive time there would make every smaller size non-positive too.
void check_positive_at_min_bytes(const FittedCollective& f, const std::string& at, Diagnostics& d) {
  const double factor = fitted_bus_factor(f.op, f.ranks);
  const double seconds = f.alpha_s + factor * f.min_bytes / f.busbw_bytes_per_second;
  if (seconds > 0) return;
  d.error(at + "/alpha_s",
          fmt::format("gives this segment a time <= 0 at its min_bytes: alpha_s + bus factor x "
                      "min_bytes / busbw_bytes_per_second = {} + {} x {} / {} = {:.6g} s; a "
                      "negative intercept needs a line that is positive from min_bytes on",
                      f.alpha_s, factor, f.min_bytes, f.busbw_bytes_per_second, seconds));
}

}  // namespace

void check_network(const NetworkConfig& n, const std::string& path, Diagnostics& d) {
  // A declared line rate bounds its link rate (found by review, 2026-11-28: a line rate of
  // 0.001 GB/s beside 450 GB/s NVLink was read, and the all-reduce ran at 401 GB/s).
  for (const auto& [line, link, line_key, link_key] :
       {std::tuple{n.intra_node_line_GBps, n.intra_node_GBps, "intra_node_line_GBps",
                   "intra_node_GBps"},
        std::tuple{n.inter_node_line_Gbps, n.inter_node_Gbps, "inter_node_line_Gbps",
                   "inter_node_Gbps"}})
    if (line > 0 && link > line)
      d.error(pointer_join(path, line_key),
              fmt::format("must be 0 (not declared) or >= {} ({:g}): a link runs at most at its "
                          "line rate, got {:g}",
                          link_key, link, line));
  if (n.bandwidth_efficiency_min > n.bandwidth_efficiency_max)
    d.error(pointer_join(path, "bandwidth_efficiency_min"),
            fmt::format("must be <= bandwidth_efficiency_max ({}), got {}",
                        n.bandwidth_efficiency_max, n.bandwidth_efficiency_min));
  const auto& fits = n.fitted_collectives;
  for (std::size_t i = 0; i < fits.size(); ++i) {
    const std::string at = fmt::format("{}/fitted_collectives/{}", path, i);
    if (fits[i].ranks_per_node > fits[i].ranks)
      d.error(at + "/ranks_per_node",
              fmt::format("must be <= ranks ({}), got {}", fits[i].ranks, fits[i].ranks_per_node));
    // Nodes of equal size, as fit requires of its logs (found by review, 2026-11-28: 12 ranks
    // at 8 per node were read).
    else if (fits[i].ranks_per_node > 0 && fits[i].ranks % fits[i].ranks_per_node != 0)
      d.error(at + "/ranks_per_node", fmt::format("{} ranks do not fill nodes of {}", fits[i].ranks,
                                                  fits[i].ranks_per_node));
    if (fits[i].max_bytes > 0 && fits[i].min_bytes > fits[i].max_bytes)
      d.error(at + "/min_bytes", fmt::format("must be <= max_bytes ({:g}), got {:g}",
                                             fits[i].max_bytes, fits[i].min_bytes));
    bool lowest = true;  // no other segment of this key starts below this one
    for (std::size_t j = 0; j < fits.size(); ++j)
      if (j != i && fits[j].op == fits[i].op && fits[j].ranks == fits[i].ranks &&
          fits[j].ranks_per_node == fits[i].ranks_per_node && fits[j].min_bytes < fits[i].min_bytes)
        lowest = false;
    if (fits[i].alpha_s < 0 && (lowest || fits[i].min_bytes <= 0))
      d.error(at + "/alpha_s",
              fmt::format("must be >= 0 in the first segment of a collective (a start-up latency); "
                          "only a later segment with min_bytes > 0 may have a negative intercept, "
                          "got {:g}",
                          fits[i].alpha_s));
    else if (fits[i].alpha_s < 0 && fits[i].busbw_bytes_per_second > 0)
      check_positive_at_min_bytes(fits[i], at, d);
    for (std::size_t j = 0; j < i; ++j)
      if (fits[j].op == fits[i].op && fits[j].ranks == fits[i].ranks &&
          fits[j].ranks_per_node == fits[i].ranks_per_node && !disjoint_segments(fits[j], fits[i]))
        d.error(at, fmt::format("duplicates entry {} (same op, ranks and ranks_per_node; segments "
                                "of one key need disjoint [min_bytes, max_bytes] ranges)",
                                j));
  }
}

void read_gpu_profile(const nlohmann::json& j, const std::string& path, Diagnostics& diags,
                      GpuProfile& out) {
  read_table(j, path, diags, gpu_profile_table(), out);
  index_gemm_points(out.compute);
}

void read_network_config(const nlohmann::json& j, const std::string& path, Diagnostics& diags,
                         NetworkConfig& out) {
  read_table(j, path, diags, network_table(), out);
  check_network(out, path, diags);
}

nlohmann::json to_json(const GpuProfile& g) {
  return write_table(gpu_profile_table(), g);
}

nlohmann::json to_json(const NetworkConfig& n) {
  return write_table(network_table(), n);
}

nlohmann::json hardware_profile_schema() {
  nlohmann::json s = table_schema(gpu_profile_table());
  s["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  s["$id"] = "https://shardsim/schemas/hardware-profile.schema.json";
  s["title"] = "shardsim hardware profile";
  s["description"] =
      "One GPU's hardware profile: shipped presets, calibration output and fit output. SI units; "
      "units in key names or in [brackets] in descriptions. Generated from the field tables in "
      "simulator/hardware/hardware_tables.cc; do not edit by hand.";
  return s;
}

nlohmann::json profile_summary(const GpuProfile& g) {
  return {{"name", g.name},
          {"fitted", g.provenance.fitted},
          {"sources", g.provenance.sources.size()},
          {"note", g.provenance.note}};
}

nlohmann::json network_summary(const NetworkConfig& n) {
  const bool fitted = n.provenance && n.provenance->fitted;
  return {{"name", n.name.empty() ? "custom" : n.name},
          {"fitted", fitted},
          {"sources", n.provenance ? n.provenance->sources.size() : 0},
          {"note", n.provenance ? n.provenance->note : ""}};
}

std::optional<std::string> unfitted_profile_warning(const GpuProfile& g) {
  if (g.provenance.fitted) return std::nullopt;
  return "hardware profile '" + g.name +
         "' is not fitted from measurements (provenance.fitted false: datasheet peaks and "
         "documented efficiencies), so its times are less certain than a fitted profile's";
}

std::optional<std::string> unfitted_network_warning(const NetworkConfig& n) {
  if (n.provenance && n.provenance->fitted) return std::nullopt;
  return "network '" + (n.name.empty() ? std::string("custom") : n.name) +
         "' is not fitted from measurements (provenance.fitted false or absent: datasheet link "
         "rates and documented latencies), so its collective times are less certain than a "
         "fitted network's";
}

}  // namespace shardsim
