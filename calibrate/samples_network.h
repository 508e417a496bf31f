// The network part of a profile fitted from calibration samples (profile_fit.h): collective
// items grouped into measured collectives, and their fit onto a profile's network.
#pragma once

#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/collective_fit.h"
#include "simulator/hardware/hardware.h"

namespace shardsim::calibrate {

using CollectiveKey = std::tuple<std::string, int, int>;  // op, ranks, ranks_per_node

// The collective items of one samples document grouped by (op, ranks, ranks_per_node), rows
// ascending by size (`lines` hold 1-based item numbers), stalled items left out
// (leave_out_stalled). Throws std::invalid_argument naming `file` for a group that is no
// placement or is left with fewer than 2 sizes.
[[nodiscard]] std::vector<MeasuredCollective> collective_rows(const nlohmann::json& samples,
                                                              const std::string& file);

// A measured collective that the base network's declared line rates or all-reduce gain limit
// refuse (line_rate_error, segment_line_rate_error, gain_limit_error): the base is not this
// fabric, or the row is wrong. Other refusals of the measurements are std::invalid_argument.
struct BaseNetworkError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Fits every measured collective (fit_collective) and the topology formula (fit_topology) onto
// `network_start` (fit --network-base; null: g.network): its segments of the measured keys give
// way, its others and their provenance are kept, marked "base 'NAME'". The result is named
// `network_name` ("": "calibrated").
// A row the fit does not represent (unfitted_row_error) is refused, or, with `unfitted`, added
// to it and fitted (calibrate: its own fresh sweep, where a loaded machine stalls a row now and
// then, warns and writes the profile rather than fail the run).
// Rows faster than the line rates of `line_rates` (the base's resolved network; null: the start's)
// are refused (line_rate_error; `lines` are 1-based item numbers).
void fit_samples_network(const std::vector<MeasuredCollective>& rows, GpuProfile& g,
                         const NetworkConfig* line_rates = nullptr,
                         const NetworkConfig* network_start = nullptr,
                         const std::string& network_name = "",
                         std::vector<std::string>* unfitted = nullptr);

}  // namespace shardsim::calibrate
