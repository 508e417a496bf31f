// The network part of a profile fitted from calibration samples (samples_network.h).
#include "calibrate/samples_network.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <stdexcept>

#include "calibrate/topology_fit.h"
#include "simulator/cost/collective.h"
#include "simulator/hardware/nccl_tests_log.h"

namespace shardsim::calibrate {
namespace {

using Key = CollectiveKey;

// A starting network for the topology fit from the collective fits: the best busbw and the
// smallest all_reduce latency, used for both levels (one-node sweeps measure no network).
NetworkConfig start_network(const std::vector<CollectiveFit>& fits,
                            const std::optional<NetworkConfig>& base) {
  NetworkConfig n = base.value_or(NetworkConfig{});
  double busbw = 0, alpha = 1;
  for (const auto& f : fits)
    for (const auto& s : f.segments) {
      busbw = std::max(busbw, std::min(s.entry.busbw_bytes_per_second, 1e13));
      if (s.entry.op == "all_reduce" && s.entry.alpha_s > 0)
        alpha = std::min(alpha, s.entry.alpha_s);
    }
  n.name = "calibrated";
  n.intra_node_GBps = busbw / 1e9;
  n.inter_node_Gbps = busbw * 8 / 1e9;
  n.intra_node_latency_us = alpha * 1e6;
  n.inter_node_latency_us = alpha * 1e6;
  return n;
}

// Whether `text` names the collective `key` ("all_reduce/2x2"), not a longer one that contains it
// ("reduce/2x2" in "all_reduce/2x2", "all_reduce/2x2" in "all_reduce/2x24").
bool names_key(const std::string& full, const std::string& key) {
  // The key is after the last ':' ("FILE:all_reduce/8x8", "base 'X': all_reduce/2x2 items"): a
  // file path that happens to contain a key is not it (found by review, 2026-11-27).
  const std::string text = full.substr(full.rfind(':') == std::string::npos ? 0 : full.rfind(':'));
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
    const bool starts =
        at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    const std::size_t after = at + key.size();
    const bool ends =
        after == text.size() || !std::isdigit(static_cast<unsigned char>(text[after]));
    if (starts && ends) return true;
  }
  return false;
}

// The base network's provenance for what stays of it: the sources, residuals and fit ranges
// that name none of the re-measured keys (its other segments), sources marked "base 'NAME'"
// once (a base's own base keeps its mark). The topology formula is refit, so the base's
// topology residuals go. (Found by review, 2026-11-27: the base's provenance was kept whole,
// replaced segments and the old topology's residuals included, and a base's base was dropped.)
void keep_base_network_provenance(const Provenance& base, const std::string& base_name,
                                  const std::vector<std::string>& remeasured, Provenance& p) {
  const auto stale = [&](const std::string& text) {
    return std::ranges::any_of(remeasured,
                               [&](const std::string& k) { return names_key(text, k); });
  };
  for (auto src : base.sources) {
    if (stale(src.description)) continue;
    if (!src.description.starts_with("base '"))
      src.description = fmt::format("base '{}': {}", base_name, src.description);
    p.sources.push_back(std::move(src));
  }
  for (const auto& [name, value] : base.residuals)
    // The topology fits' own residuals ("topology/all_reduce/2x2/median_pct" from samples,
    // "topology RMS log error" from nccl-tests logs), not a log whose name starts "topology".
    if (!stale(name) && !name.starts_with("topology/") && name != "topology RMS log error")
      p.residuals.emplace(name, value);
  for (const auto& r : base.fit_ranges)
    if (!stale(r.name) &&
        std::ranges::none_of(p.fit_ranges, [&](const FitRange& n) { return n.name == r.name; }))
      p.fit_ranges.push_back(r);
}

}  // namespace

// Collective items grouped by (op, ranks, ranks_per_node), rows ascending by size.
std::vector<MeasuredCollective> collective_rows(const nlohmann::json& samples,
                                                const std::string& file) {
  std::map<Key, std::map<double, std::pair<double, int>>> groups;
  int index = 0;
  for (const auto& item : samples.at("items")) {
    ++index;
    if (item.at("kind") != "collective") continue;
    const auto& p = item.at("params");
    const auto op = collective_from_name(p.at("op").get<std::string>());
    const double bytes = p.at("bytes"), t = item.at("median_s");
    if (!op || bytes <= 0 || t <= 0) continue;
    // Group sizes are whole numbers of ranks (a cast of 1e300 to int is undefined): ranks 1 to
    // 2^20, ranks per node a divisor of them.
    const double ranks = p.at("ranks"), per_node = p.at("ranks_per_node");
    const auto whole = [](double v, double hi) { return v >= 1 && v <= hi && v == std::floor(v); };
    if (!whole(ranks, double(1 << 20)) || !whole(per_node, ranks) ||
        std::fmod(ranks, per_node) != 0)
      throw std::invalid_argument(fmt::format(
          "{}: items[{}]: params.ranks {} and ranks_per_node {} are not a group of 1 to 2^20 "
          "ranks in nodes of a divisor of it",
          file, index - 1, p.at("ranks").dump(), p.at("ranks_per_node").dump()));
    const Key key{collective_name(*op), int(ranks), int(per_node)};
    groups[key].emplace(bytes, std::pair{t, index});
  }
  std::vector<MeasuredCollective> out;
  for (const auto& [key, rows] : groups) {
    MeasuredCollective m{file, std::get<0>(key), std::get<1>(key), std::get<2>(key), {}, {}, {}, {},
                         {}};
    if (m.ranks < 2 || rows.size() < 2) continue;
    // As for a log or table (found by review, 2026-11-28: 40,000 items of one group took 9 s).
    if (rows.size() > kMaxRowsPerCollective)
      throw std::invalid_argument(
          fmt::format("{}: {} on {} ranks, {} per node: {} sizes, more than {}; thin the sweep",
                      file, m.op, m.ranks, m.ranks_per_node, rows.size(), kMaxRowsPerCollective));
    for (const auto& [bytes, tl] : rows) {
      m.bytes.push_back(bytes);
      m.seconds.push_back(tl.first);
      m.lines.push_back(tl.second);
    }
    // As for logs (found by review, 2026-11-28: a 1 KiB sample stalled to 1 ms collapsed the
    // fit into one segment 4.4x off at 64 MiB, exit 0). `lines` holds 1-based item numbers.
    leave_out_stalled(m);
    if (m.bytes.size() < 2)  // as for a log: the group cannot be fitted, and says why
      throw std::invalid_argument(fmt::format(
          "{}: {} on {} ranks, {} per node: fewer than 2 sizes left after {} stalled item(s) "
          "(over {:g}x slower than a larger message) were left out",
          file, m.op, m.ranks, m.ranks_per_node, m.left_out.size(), kStallFactor));
    out.push_back(std::move(m));
  }
  return out;
}

void fit_samples_network(const std::vector<MeasuredCollective>& rows, GpuProfile& g,
                         const NetworkConfig* line_rates, const NetworkConfig* network_start,
                         const std::string& network_name, std::vector<std::string>* unfitted) {
  std::vector<CollectiveFit> fits;
  for (const auto& m : rows) fits.push_back(fit_collective(m));
  // --network-base and --network-name applied to logs only (found by review, 2026-11-29: with
  // --samples alone both were ignored, exit 0).
  const std::optional<NetworkConfig> from =
      network_start != nullptr ? std::optional(*network_start) : g.network;
  NetworkConfig start = start_network(fits, from);
  if (!network_name.empty()) start.name = network_name;
  for (const auto& m : rows)  // `lines` are 1-based item numbers here
    if (const std::string e = line_rate_error(m, line_rates ? *line_rates : start, true);
        !e.empty())
      throw BaseNetworkError(e);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (const std::string e = segment_range_error(rows[i], fits[i], true); !e.empty())
      throw std::invalid_argument(e);
    if (const std::string e = unfitted_row_error(rows[i], fits[i], true); !e.empty()) {
      if (unfitted == nullptr) throw std::invalid_argument(e);
      unfitted->push_back(e);
    }
    if (const std::string e =
            segment_line_rate_error(rows[i], fits[i], line_rates ? *line_rates : start, true);
        !e.empty())
      throw BaseNetworkError(e);
  }
  const TopologyFit topo = fit_topology(rows, start);
  if (const std::string e = gain_limit_error(topo.net); !e.empty()) throw BaseNetworkError(e);
  NetworkConfig net = topo.net;
  // The base's segments of a measured key give way to the new ones (found 2026-11-27: refitting
  // a profile's own samples onto it duplicated every segment, and the profile did not read back).
  std::erase_if(net.fitted_collectives, [&](const FittedCollective& f) {
    return std::ranges::any_of(rows, [&](const MeasuredCollective& m) {
      return m.op == f.op && m.ranks == f.ranks && m.ranks_per_node == f.ranks_per_node;
    });
  });
  std::vector<std::string> files;
  for (const auto& m : rows)
    if (std::ranges::find(files, m.file) == files.end()) files.push_back(m.file);
  const bool kept = !net.fitted_collectives.empty();  // the base's segments of other keys
  net.description =
      fmt::format("fitted by shardsim from calibration collectives ({}){}", fmt::join(files, ", "),
                  kept ? fmt::format("; other segments from base network '{}'",
                                     from ? from->name : std::string())
                       : std::string());
  Provenance prov{true, {}, {}, {}, "topology-model fit and fitted collective segments"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& m = rows[i];
    const std::string name = fmt::format("{}/{}x{}", m.op, m.ranks, m.ranks_per_node);
    for (const auto& e : entries(fits[i])) net.fitted_collectives.push_back(e);
    prov.residuals[name] = fits[i].residual;
    prov.residuals["topology/" + name + "/median_pct"] = topo.errors[i].median_pct;
    prov.sources.push_back({m.file, m.lines.front(), m.lines.back(), "", name + " items"});
    prov.fit_ranges.push_back({name + " bytes", m.bytes.front(), m.bytes.back(), "bytes"});
  }
  if (from && from->provenance) {
    std::vector<std::string> remeasured;
    for (const auto& m : rows)
      remeasured.push_back(fmt::format("{}/{}x{}", m.op, m.ranks, m.ranks_per_node));
    keep_base_network_provenance(*from->provenance, from->name, remeasured, prov);
  }
  net.provenance = prov;
  g.network = net;
}

}  // namespace shardsim::calibrate
