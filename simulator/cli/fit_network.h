// shardsim fit's network half: nccl-tests logs and collective tables -> fitted collectives per
// measured placement plus the topology formula's parameters (calibrate/), onto a base network.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibrate/topology_fit.h"
#include "simulator/cli/fit_args.h"
#include "simulator/cli/fit_report.h"
#include "simulator/hardware/hardware.h"

namespace shardsim::cli {

// The network fitted from every log and table: topology formula plus fitted collectives.
struct NetworkFit {
  NetworkConfig net;
  std::vector<LogReport> logs;
  std::optional<calibrate::TopologyFit> topo;
};

// The network of `a`'s logs and tables on `g`'s node size, or nullopt when `a` gives none.
// InputError (exit 2) for unreadable or inconsistent logs and fits that are not finite.
[[nodiscard]] std::optional<NetworkFit> fit_network(const FitArgs& a, const GpuProfile& g);

// The network a fit starts from: --network-base (a cluster preset or a network JSON file; ""
// when not given), else the base profile's own network, else its node.network preset, else the
// defaults. InputError naming the flag when one cannot be read.
[[nodiscard]] NetworkConfig base_network(const GpuProfile& g, const std::string& network_base);

// "Fitted by shardsim fit (provenance says from what). <base description>", once (the fitted
// network's and the fitted profile's description).
[[nodiscard]] std::string fitted_description(const std::string& base);

}  // namespace shardsim::cli
