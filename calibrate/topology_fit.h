// Topology-model fit: the NetworkConfig parameters of simulator/cost/collective.h (link
// bandwidths, base and per-hop latencies, the bandwidth-efficiency curve) fitted jointly over all
// nccl-tests logs of one fabric, so that group sizes and node counts not in the logs are
// predicted by the formula rather than by a per-log curve. Pure functions, deterministic.
#pragma once

#include <string>
#include <vector>

#include "calibrate/collective_fit.h"
#include "simulator/hardware/hardware.h"

namespace shardsim::calibrate {

// How well a network predicts one log: |predicted - measured| / measured over its rows, percent.
struct LogError {
  std::string file;
  std::string op;
  int ranks = 0;
  int ranks_per_node = 0;
  double median_pct = 0;
  double max_pct = 0;
  std::size_t rows = 0;
};

struct TopologyFit {
  NetworkConfig net;             // the base network with the fitted parameters
  std::vector<LogError> errors;  // per fitted log
  double residual = 0;           // RMS log error ln(t_pred / t_meas), logs weighted equally
};

// Fitted parameters, in log space (all positive): intra_node_GBps, inter_node_Gbps,
// intra_node_latency_us, inter_node_latency_us, intra/inter_node_hop_latency_us,
// bandwidth_efficiency_min and bandwidth_efficiency_half_bytes. bandwidth_efficiency_max stays at
// the base value: it only scales the link bandwidths (B * eff_max is what large messages see),
// so fitting both would leave the pair undetermined. eff_min is capped at eff_max.
// Where the base declares line rates (intra_node_line_GBps, inter_node_line_Gbps), the link rates
// stay at or below them, and intra/inter_node_all_reduce_gain are fitted too (>= 1), each only
// when an all-reduce log with large rows uses its level. A level whose link no other
// collective's log uses leaves link x gain determined but not the split: the link takes the
// product up to the line rate and the gain the rest.
// Objective (minimised by Nelder-Mead from the base network's values, 4000 evaluations):
//   E = (1 / L) sum_logs (1 / R_l) sum_rows ln(t_pred / t_meas)^2
// (squared log errors: a factor of 2 too slow costs as much as a factor of 2 too fast)
// with t_pred = collective_cost(op, S, {ranks, ranks_per_node}, net) of the formula (fitted
// collectives are cleared while fitting). Parameters no log constrains stay at the base values:
// the inter-node ones when no log crosses nodes, the intra-node ones when no log has two ranks on
// a node. Each is capped at the profile reader's upper bound.
// REQUIRES: at least one log with rows.
[[nodiscard]] TopologyFit fit_topology(const std::vector<MeasuredCollective>& logs,
                                       const NetworkConfig& base);

// "" when the fitted network's all-reduce gains are within kMaxAllReduceGain; else why not (the
// logs run far faster than the base's line rates allow: the base is not their fabric). fit_topology
// does not clamp them: its callers refuse such a fit with this message (exit 2).
[[nodiscard]] std::string gain_limit_error(const NetworkConfig& net);

// "" when every measured row is possible on `base`'s declared line rates; else the first row
// that is not, with its file and line. A rank moves at least f x S bytes out of (or into) its GPU
// in a collective of S bytes: f = 1 for all_reduce (in-switch reduction sends each byte once),
// send/recv and broadcast, (n - 1) / n for all_gather, reduce_scatter and all-to-all (nccl-tests
// sizes). So t >= f x S / B, with B the GPU's line rate: intra_node_line_GBps within a node, plus
// its inter_node_line_Gbps share across nodes. A row faster than that by more than
// kLineRateTolerance (timer granularity) is refused. Without a declared line rate (0) nothing is
// checked at that level: a multi-node log needs both.
inline constexpr double kLineRateTolerance = 1.05;
// `items`: the rows' `lines` are a samples document's 1-based item numbers ("FILE item N").
[[nodiscard]] std::string line_rate_error(const MeasuredCollective& m, const NetworkConfig& base,
                                          bool items = false);

// "" when `fit`'s last segment, which prices sizes beyond the log's largest up to
// kFittedExtrapolation times it, stays within `base`'s declared line rates there
// (line_rate_error's bound, with kLineRateTolerance); else why not, naming the log's last row. A
// few rows still in the latency regime can fit a line steeper than the fabric allows (found by
// review, 2026-11-29: three rows under the 450 GB/s NVLink line fitted 1,473 GB/s busbw, and 1 GiB
// was priced at 753 GB/s algbw).
[[nodiscard]] std::string segment_line_rate_error(const MeasuredCollective& m,
                                                  const CollectiveFit& fit,
                                                  const NetworkConfig& base, bool items = false);

// Errors of `net`'s formula (fitted collectives ignored) on each log.
[[nodiscard]] std::vector<LogError> topology_errors(const std::vector<MeasuredCollective>& logs,
                                                    const NetworkConfig& net);

}  // namespace shardsim::calibrate
