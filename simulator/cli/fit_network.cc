// shardsim fit's network half (fit_network.h).
#include "simulator/cli/fit_network.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "calibrate/collective_fit.h"
#include "calibrate/collective_tables.h"
#include "calibrate/linear_fit.h"
#include "simulator/cli/fit_inputs.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/presets.h"

namespace shardsim::cli {

namespace cal = shardsim::calibrate;

namespace {

using nlohmann::json;

std::vector<cal::MeasuredCollective> load_log(const std::string& path, const FitArgs& a,
                                              int gpus_per_node) {
  const std::string text = read_input(path, "--nccl-tests");
  auto parsed = parse_nccl_tests_log(text, path);
  if (auto* e = std::get_if<NcclTestsError>(&parsed)) throw InputError("--nccl-tests", e->text());
  auto m = cal::measured_collectives(std::get<NcclTestsLog>(parsed),
                                     {a.ranks, gpus_per_node, a.gpus_per_node > 0});
  if (auto* e = std::get_if<std::string>(&m)) throw InputError("--nccl-tests", *e);
  return std::get<std::vector<cal::MeasuredCollective>>(m);
}

std::vector<cal::MeasuredCollective> load_table(const std::string& path, const FitArgs& a,
                                                int gpus_per_node) {
  auto m = cal::parse_collective_table(read_input(path, "--collective-table"), path,
                                       {a.ranks, gpus_per_node}, a.device);
  if (auto* e = std::get_if<std::string>(&m)) throw InputError("--collective-table", *e);
  return std::get<std::vector<cal::MeasuredCollective>>(m);
}

// Replaces the base network's entries of the same key by the new segments.
void merge_fitted(NetworkConfig& net, const std::vector<FittedCollective>& fresh) {
  std::erase_if(net.fitted_collectives, [&](const FittedCollective& f) {
    return std::ranges::any_of(fresh, [&](const FittedCollective& g) {
      return g.op == f.op && g.ranks == f.ranks && g.ranks_per_node == f.ranks_per_node;
    });
  });
  net.fitted_collectives.insert(net.fitted_collectives.end(), fresh.begin(), fresh.end());
}

// Two measured collectives of the same (op, ranks, ranks_per_node) would each replace the
// other's segments in merge_fitted: refuse instead of silently keeping the last.
void check_distinct_keys(const std::vector<cal::MeasuredCollective>& all) {
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const auto &a = all[j], &b = all[i];
      if (a.op == b.op && a.ranks == b.ranks && a.ranks_per_node == b.ranks_per_node)
        throw InputError(
            "--nccl-tests",
            fmt::format("{} (line {}) and {} (line {}) both measure {} on {} ranks, {} per node; "
                        "give one log or table per (op, ranks, ranks per node)",
                        a.file, a.lines.front(), b.file, b.lines.front(), a.op, a.ranks,
                        a.ranks_per_node));
    }
}

// A fit of finite rows can still be 0/0 (times so large that 1/t^2 underflows): refuse it
// before anything prints a NaN.
void check_finite(const LogReport& r) {
  bool ok = std::isfinite(r.fit.residual) && std::isfinite(r.held_out_pct);
  for (const auto& s : r.fit.segments)
    ok = ok && std::isfinite(s.entry.alpha_s) && std::isfinite(s.entry.busbw_bytes_per_second) &&
         std::isfinite(s.residual);
  if (!ok)
    throw InputError("--nccl-tests",
                     fmt::format("{}: lines {}-{}: the times ({:g} .. {:g} s) give no finite "
                                 "latency/bandwidth fit; check the time column",
                                 r.rows.file, r.rows.lines.front(), r.rows.lines.back(),
                                 r.rows.seconds.front(), r.rows.seconds.back()));
}

void check_finite(const cal::TopologyFit& t, const std::vector<cal::MeasuredCollective>& logs) {
  bool ok = std::isfinite(t.residual);
  for (const auto& e : t.errors) ok = ok && std::isfinite(e.median_pct) && std::isfinite(e.max_pct);
  std::set<std::string> files;
  for (const auto& m : logs) files.insert(m.file);
  if (!ok)
    throw InputError("--nccl-tests",
                     fmt::format("the times of {} give no finite topology fit; check their time "
                                 "columns",
                                 fmt::join(files, ", ")));
}

}  // namespace

// "Fitted by shardsim fit (provenance says from what). <base description>", once.
std::string fitted_description(const std::string& base) {
  const std::string prefix = "Fitted by shardsim fit (provenance says from what). ";
  return base.starts_with(prefix) ? base : prefix + base;
}

// --network-base (a cluster preset or a network JSON file), else the base profile's own network,
// else its node.network preset.
NetworkConfig base_network(const GpuProfile& g, const std::string& network_base) {
  if (!network_base.empty()) {
    json j;
    if (auto preset = find_preset(PresetKind::kCluster, network_base)) {
      j = *preset;
    } else {
      if (!path_exists(network_base, "--network-base"))
        throw_unknown_preset(PresetKind::kCluster, network_base, "--network-base", true);
      try {
        j = read_json_file(network_base);
      } catch (const InputError& e) {
        throw InputError("--network-base", e.items().front().message);
      }
    }
    NetworkConfig n;
    Diagnostics d;
    read_network_config(j, "", d, n);
    if (!d.empty()) throw_with_flag(d, "--network-base", network_base);
    if (n.name.empty()) n.name = network_base;
    return n;
  }
  if (g.network) return *g.network;
  if (g.default_network.empty()) return NetworkConfig{};
  const auto preset = find_preset(PresetKind::kCluster, g.default_network);
  if (!preset)
    throw InputError("--base", fmt::format("default_network \"{}\" is not a known network preset",
                                           g.default_network));
  NetworkConfig n;
  Diagnostics d;
  read_network_config(*preset, "", d, n);
  if (!d.empty())
    throw InputError("--base",
                     fmt::format("network preset \"{}\": {}", g.default_network, d.format()));
  return n;
}

std::optional<NetworkFit> fit_network(const FitArgs& a, const GpuProfile& g) {
  const int per_node = a.gpus_per_node > 0 ? a.gpus_per_node : g.default_gpus_per_node;
  std::vector<cal::MeasuredCollective> all;
  for (const auto& path : a.nccl_logs)
    for (auto& m : load_log(path, a, per_node)) all.push_back(std::move(m));
  std::map<std::size_t, cal::MeasuredCollective> held;  // index in `all` -> rows held out
  for (const auto& path : a.collective_tables)
    for (auto& m : load_table(path, a, per_node)) {
      if (a.table_fit_sizes == "ladder") {
        auto [on, off] = cal::split_on_ladder(m);
        if (on.bytes.size() < 2)
          throw InputError("--table-fit-sizes",
                           fmt::format("{}: {} rows on the 2^k / 3x2^k size ladder, need 2", path,
                                       on.bytes.size()));
        if (!off.bytes.empty()) held.emplace(all.size(), std::move(off));
        m = std::move(on);
      }
      all.push_back(std::move(m));
    }
  if (all.empty()) return std::nullopt;
  check_distinct_keys(all);
  const NetworkConfig base = base_network(g, a.network_base);
  // Rows faster than the base's line rates allow (found by review, 2026-11-28: a log at 180 TB/s
  // busbw on 450 GB/s NVLink fitted a 17 ps all-reduce).
  for (const auto& m : all)
    if (const std::string e = cal::line_rate_error(m, base); !e.empty())
      throw InputError(std::ranges::find(a.nccl_logs, m.file) != a.nccl_logs.end()
                           ? "--nccl-tests"
                           : "--collective-table",
                       e);
  NetworkFit out;
  out.topo = cal::fit_topology(all, base);
  check_finite(*out.topo, all);
  if (const std::string e = cal::gain_limit_error(out.topo->net); !e.empty())
    throw InputError(a.network_base.empty() ? "--base" : "--network-base", e);
  NetworkConfig& net = out.net = out.topo->net;
  // A refitted network is not the base's any more (a report naming the base network must mean
  // the preset's values).
  if (!a.network_name.empty())
    net.name = a.network_name;
  else if (net.name.empty())
    net.name = "fitted";
  else if (!net.name.ends_with("-fitted"))
    net.name += "-fitted";
  Provenance prov{true, {}, {}, {}, ""};
  // The base's sources stay, marked: they explain the values no measurement constrains.
  if (out.topo->net.provenance)
    for (auto src : out.topo->net.provenance->sources) {
      src.description = fmt::format("base '{}': {}", out.topo->net.name, src.description);
      prov.sources.push_back(std::move(src));
    }
  prov.residuals["topology RMS log error"] = out.topo->residual;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& m = all[i];
    LogReport r{
        m, cal::fit_collective(m), m.bytes.size() >= 4 ? cal::held_out_median_pct(m) : -1.0, {}};
    if (held.contains(i)) r.ladder_held_out_pct = cal::prediction_errors_pct(r.fit, held.at(i));
    check_finite(r);
    std::string unfitted = cal::segment_range_error(m, r.fit, false);
    if (unfitted.empty()) unfitted = cal::unfitted_row_error(m, r.fit, false);
    if (const std::string e =
            unfitted.empty() ? cal::segment_line_rate_error(m, r.fit, base) : unfitted;
        !e.empty())
      throw InputError(std::ranges::find(a.nccl_logs, m.file) != a.nccl_logs.end()
                           ? "--nccl-tests"
                           : "--collective-table",
                       e);
    merge_fitted(net, cal::entries(r.fit));
    const std::string name = fmt::format("{}:{}/{}x{}", m.file, m.op, m.ranks, m.ranks_per_node);
    prov.sources.push_back({m.file, m.lines.front(), m.lines.back(), "", name});
    prov.fit_ranges.push_back({name + " bytes", m.bytes.front(), m.bytes.back(), "bytes"});
    prov.residuals[name] = r.fit.residual;
    if (r.held_out_pct >= 0) prov.residuals[name + " held-out median"] = r.held_out_pct / 100;
    if (!r.ladder_held_out_pct.empty()) {
      prov.residuals[name + " off-ladder held-out median"] =
          cal::median(r.ladder_held_out_pct) / 100;
      prov.residuals[name + " off-ladder held-out max"] =
          *std::ranges::max_element(r.ladder_held_out_pct) / 100;
    }
    out.logs.push_back(std::move(r));
  }
  prov.note = fmt::format(
      "fitted by shardsim fit from {} collective measurement(s) onto base network '{}': "
      "fitted_collectives for the measured (op, ranks, ranks per node), the topology formula's "
      "parameters for every other group; values the measurements do not constrain keep the "
      "base's",
      all.size(), out.topo->net.name);
  net.provenance = prov;
  net.description = fitted_description(net.description);
  return out;
}

}  // namespace shardsim::cli
