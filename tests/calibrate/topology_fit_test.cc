// The topology-model fit on one fabric (ALCF Polaris: 4x A100 per node, Slingshot-11): fitted on
// the shared Polaris logs, checked on published Polaris logs that are not in the shared data set
// (tests/data/nccl/heldout, source headers in the files).
#include "calibrate/topology_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "simulator/cost/collective.h"
#include "tests/calibrate/nccl_test_data.h"

namespace shardsim::calibrate {
namespace {

using test::kHeldoutDir;
using test::kNcclDir;
using test::load_log;

// Start values: the dgx-a100 datasheet preset (scenarios/clusters/dgx-a100-datasheet.json: 300 GB/s
// NVLink, 15 us, 200 Gb/s, 38.6 us) with the NetworkConfig defaults for hops and efficiency.
// Polaris nodes have 4 A100s and one 200 Gb/s Slingshot NIC per GPU. No line rates: a 4-GPU
// NVLink mesh gives each peer a third of the DGX A100's 300 GB/s, so the preset's would not be
// Polaris's (declared, the fit put NVLink at 44 GB/s and the 2-node all_gather went 17 -> 38 %).
NetworkConfig start_network() {
  NetworkConfig n;
  n.name = "polaris-start";
  n.intra_node_GBps = 300;
  n.intra_node_latency_us = 15.0;
  n.inter_node_Gbps = 200;
  n.inter_node_latency_us = 38.6;
  return n;
}

std::vector<MeasuredCollective> polaris_shared() {
  std::vector<MeasuredCollective> out;
  for (const char* f : {"polaris-a100-slingshot-2node_all_reduce_8.log",
                        "polaris-a100-slingshot-8node_all_reduce_32.log",
                        "polaris-a100-slingshot-8node_all_gather_32.log",
                        "polaris-a100-slingshot-8node_alltoall_32.log",
                        "polaris-a100-slingshot-540node_all_reduce_2160.log"})
    for (auto& m : load_log(kNcclDir / f)) out.push_back(std::move(m));
  return out;
}

void print(const char* title, const std::vector<LogError>& errors) {
  std::printf("%s\n%-52s %5s %4s %9s %9s\n", title, "log", "ranks", "ppn", "median", "max");
  for (const auto& e : errors)
    std::printf("%-52s %5d %4d %8.1f%% %8.1f%%\n", e.file.c_str(), e.ranks, e.ranks_per_node,
                e.median_pct, e.max_pct);
}

TEST(topology_fit, PolarisFitPredictsHeldOutNodeCounts) {
  const auto shared = polaris_shared();
  ASSERT_EQ(shared.size(), 5u);
  const TopologyFit fit = fit_topology(shared, start_network());
  print("fitted (shared Polaris logs):", fit.errors);
  std::printf(
      "net: NVLink %.1f GB/s, NIC %.1f Gbit/s, lat %.1f/%.1f us, hops %.2f/%.2f us, "
      "eff %.3f..%.3f half %.0f B\n",
      fit.net.intra_node_GBps, fit.net.inter_node_Gbps, fit.net.intra_node_latency_us,
      fit.net.inter_node_latency_us, fit.net.intra_node_hop_latency_us,
      fit.net.inter_node_hop_latency_us, fit.net.bandwidth_efficiency_min,
      fit.net.bandwidth_efficiency_max, fit.net.bandwidth_efficiency_half_bytes);
  std::vector<MeasuredCollective> held;
  for (const auto& p : test::logs_in(kHeldoutDir))
    for (auto& m : load_log(p)) held.push_back(std::move(m));
  ASSERT_EQ(held.size(), 2u);
  const auto errors = topology_errors(held, fit.net);
  print("held out (not in the shared data set):", errors);
  // Honest tolerances, not the 5%: the topology formula (ring/tree/hierarchical with one
  // saturating efficiency curve) has no LL/LL128/Simple protocol steps, so per-log medians on the
  // fitted logs are 16-49% and the held-out predictions reach these. Fitting squared log errors
  // (topology_fit.h) measured 46.5% at 1024 ranks (was 53.4% with squared relative errors; NCCL
  // 2.21 of that run also differs from the 2.18 of the fit, and its large-message busbw, 30 GB/s,
  // lies between the 8-node logs' 36 and the 540-node log's 18.7 that the fit must share one
  // bandwidth with) and 18.3% for all_gather on 2 nodes (was 37.8%: the latency floor is no longer
  // pulled down). Pricing an all-to-all's efficiency by each link's whole share rather than one
  // peer's message (collective.h, 2026-11-28) moved the Polaris fit: fitted alltoall 35.7 ->
  // 28.1 %, 8-node all_reduce 30.2 -> 27.8 %, 540-node 19.7 -> 22.9 %; held out, all_gather on
  // 2 nodes 18.3 -> 17.3 % and 1024 ranks 46.5 -> 60.7 % (the shared parameters settle
  // elsewhere: inter-node base latency 7.5 -> 0 us, hops 11.9 -> 12.8 us). Fitting NVLink's
  // bandwidth only from logs whose large messages use it (one node, or send/recv; none here, so
  // it keeps the start's 300 GB/s; 2026-11-28): fitted medians 9.2 / 29.6 / 47.4 / 28.1 / 23.3 %,
  // held out 1024 ranks 60.7 -> 58.7 % and all_gather on 2 nodes 17.3 -> 16.7 %. Bounds: those
  // figures plus ~5 points; they guard against a regression, they do not claim the target is
  // met.
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_LE(errors[0].median_pct, 65.0) << errors[0].file;
  EXPECT_LE(errors[1].median_pct, 24.0) << errors[1].file;
  // The fit must beat the unfitted start on the logs it saw.
  const auto before = topology_errors(shared, start_network());
  for (std::size_t i = 0; i < shared.size(); ++i)
    EXPECT_LE(fit.errors[i].median_pct, before[i].median_pct) << fit.errors[i].file;
}

// A level only all-reduce logs use: they fix link rate x all-reduce gain. With a declared line
// rate the link takes the product up to it and the gain the rest, and the logs' predictions are
// those of the fit without a line rate (AWS p5's one-node log: busbw ~490 GB/s at 16 GiB, above
// what a ring over the 450 GB/s NVLink line rate reaches, 450 x 0.9).
TEST(topology_fit, AllReduceOnlyLevelsSplitAtTheLineRate) {
  const auto logs = load_log(kNcclDir / "aws-p5-h100-nvlink-1node_all_reduce_8.log");
  ASSERT_EQ(logs.size(), 1u);
  NetworkConfig free_start = start_network();
  free_start.intra_node_GBps = 450;
  NetworkConfig lined_start = free_start;
  lined_start.intra_node_line_GBps = 450;
  const TopologyFit free_fit = fit_topology(logs, free_start);
  const TopologyFit lined = fit_topology(logs, lined_start);
  ASSERT_GT(free_fit.net.intra_node_GBps, 450);  // the link alone went above the wire
  EXPECT_EQ(lined.net.intra_node_GBps, 450);
  EXPECT_NEAR(lined.net.intra_node_GBps * lined.net.intra_node_all_reduce_gain,
              free_fit.net.intra_node_GBps, 1e-9 * free_fit.net.intra_node_GBps);
  EXPECT_NEAR(lined.errors[0].median_pct, free_fit.errors[0].median_pct, 1e-9);
  EXPECT_NEAR(lined.errors[0].max_pct, free_fit.errors[0].max_pct, 1e-9);
}

// Where another collective's log uses the same link, link and gain are both fitted, the link at
// or below its line rate: on the DGX H100 logs (rebuild-profiles.sh's dgx-h100 set) the one-node
// all_gather and reduce_scatter run at ~365 GB/s busbw, the all_reduce at ~490.
TEST(topology_fit, LinkRatesAreBoundedByTheLineRates) {
  std::vector<MeasuredCollective> logs;
  for (const char* f :
       {"aws-p5-h100-nvlink-1node_all_reduce_8.log", "h100-sxm-nvlink-1node_all_gather_8.log",
        "h100-sxm-nvlink-1node_reduce_scatter_8.log", "h100-sxm-10node_all_reduce_80.log",
        "h100-sxm-10node_alltoall_80.log"})
    for (auto& m : load_log(kNcclDir / f)) logs.push_back(std::move(m));
  ASSERT_EQ(logs.size(), 5u);
  // The Polaris start with DGX H100's datasheet links (450 GB/s, 400 Gb/s) as link and line rates.
  NetworkConfig start = start_network();
  start.intra_node_GBps = start.intra_node_line_GBps = 450;
  start.inter_node_Gbps = start.inter_node_line_Gbps = 400;
  const TopologyFit fit = fit_topology(logs, start);
  EXPECT_LE(fit.net.intra_node_GBps, 450);
  EXPECT_LE(fit.net.inter_node_Gbps, 400);
  // Without any all-reduce log the bound holds too (found by review, 2026-11-28: it applied only
  // beside an all-reduce log). The 10-node send/recv log alone fits NVLink far above the wire
  // when nothing bounds it (its 8-rank pairs share a node).
  const auto sendrecv = load_log(kNcclDir / "h100-sxm-10node_sendrecv_80.log");
  ASSERT_EQ(sendrecv.size(), 1u);
  NetworkConfig free_start = start;
  free_start.intra_node_line_GBps = free_start.inter_node_line_Gbps = 0;
  EXPECT_GT(fit_topology(sendrecv, free_start).net.intra_node_GBps, 450);
  EXPECT_LE(fit_topology(sendrecv, start).net.intra_node_GBps, 450);
  EXPECT_GT(fit.net.intra_node_all_reduce_gain, 1.2);  // ~490 / ~365 = 1.34, measured
}

// A log of another collective whose rows stop below kLargeBytes still uses the link beyond its
// latency regime: it must keep the level from being split (found by review, 2026-11-28: with
// all_gather rows to 8 MiB the split priced them at the line rate, 36.9 % off). The all_gather
// here is the formula's own on a 300 GB/s NVLink (8 B to 8 MiB, x4 steps), beside AWS p5's
// one-node all-reduce; the fit must still describe it.
TEST(topology_fit, MidSizeLogsOfOtherCollectivesKeepTheLinkTheirOwn) {
  auto logs = load_log(kNcclDir / "aws-p5-h100-nvlink-1node_all_reduce_8.log");
  ASSERT_EQ(logs.size(), 1u);
  NetworkConfig truth = start_network();
  truth.intra_node_GBps = 300;
  MeasuredCollective gather;
  gather.file = "synthetic_all_gather_8.log";
  gather.op = "all_gather";
  gather.ranks = gather.ranks_per_node = 8;
  for (double b = 8; b <= 8.0 * 1048576; b *= 4) {
    gather.bytes.push_back(b);
    gather.seconds.push_back(collective_cost(CollectiveOp::kAllGather, b, {8, 8}, truth).seconds);
    gather.lines.push_back(int(gather.lines.size()) + 1);
  }
  logs.push_back(gather);
  NetworkConfig start = start_network();
  start.intra_node_GBps = start.intra_node_line_GBps = 450;
  const TopologyFit fit = fit_topology(logs, start);
  // The all_gather's link (300 GB/s) is fitted with the all-reduce's gain beside it (341 GB/s
  // and 1.48 here); split, the link went to the 450 GB/s line rate with gain 1.15.
  EXPECT_LT(fit.net.intra_node_GBps, 400);
  EXPECT_GT(fit.net.intra_node_all_reduce_gain, 1.2);
  EXPECT_LT(fit.errors[1].max_pct, 10) << fit.errors[1].file;
}

// No row may beat the GPU's line rate (line_rate_error). Round numbers: NVLink line 100 GB/s,
// NIC line 400 Gb/s = 50 GB/s per GPU.
TEST(topology_fit, NoRowBeatsTheLineRate) {
  NetworkConfig base;
  base.intra_node_line_GBps = 100;
  base.inter_node_line_Gbps = 400;
  MeasuredCollective m{"x.log", "all_reduce", 8, 8, {1e9, 2e9}, {10e-3, 20e-3}, {7, 8}, {}, {}};
  // all_reduce of 1e9 B moves at least 1e9 B per rank: t >= 1e9 / 100e9 = 10 ms (equal: possible).
  EXPECT_EQ(line_rate_error(m, base), "");
  // 2e9 B needs 20 ms; kLineRateTolerance 1.05: 19.2 ms passes (x 1.05 = 20.16 ms), 18.8 ms does
  // not (19.74 ms), and the message names the file and line.
  m.seconds[1] = 19.2e-3;
  EXPECT_EQ(line_rate_error(m, base), "");
  m.seconds[1] = 18.8e-3;
  EXPECT_NE(line_rate_error(m, base).find("x.log:8: all_reduce of 2e+09 B"), std::string::npos)
      << line_rate_error(m, base);
  // all_gather of 2e9 B on 8 ranks receives at least 7/8 x 2e9 = 1.75e9 B: 17.5 ms on NVLink.
  m.op = "all_gather";
  EXPECT_EQ(line_rate_error(m, base), "");  // 18.8 ms
  m.seconds[1] = 16e-3;                     // 16.8 ms < 17.5 ms after the tolerance
  EXPECT_NE(line_rate_error(m, base), "");
  // Across 2 nodes (4 ranks each) the GPU has NVLink plus its NIC share, 150 GB/s: 1.75e9 B takes
  // at least 11.7 ms, so 16 ms is possible.
  m.ranks_per_node = 4;
  EXPECT_EQ(line_rate_error(m, base), "");
  m.seconds[1] = 10e-3;
  EXPECT_NE(line_rate_error(m, base).find("intra_node_line_GBps 100 + inter_node_line_Gbps 400"),
            std::string::npos);
  // Without a declared NIC line rate a multi-node row is not judged; nor any row without NVLink's.
  base.inter_node_line_Gbps = 0;
  EXPECT_EQ(line_rate_error(m, base), "");
  m.ranks_per_node = 8;
  base.intra_node_line_GBps = 0;
  EXPECT_EQ(line_rate_error(m, base), "");
}

// A fitted all-reduce gain above kMaxAllReduceGain (16) is refused, naming the level's line rate.
// Rows faster than the line rate no longer reach the fit (line_rate_error), so this is the last
// guard: a network with an intra-node gain of 20 over a 15.75 GB/s line.
TEST(topology_fit, AGainAboveTheLimitIsNamed) {
  NetworkConfig n;
  n.intra_node_line_GBps = 15.75;
  n.intra_node_all_reduce_gain = 20;
  EXPECT_NE(gain_limit_error(n).find("20.0 times what the base network's intra_node_line_GBps "
                                     "(15.75) allows"),
            std::string::npos)
      << gain_limit_error(n);
  n.intra_node_all_reduce_gain = 16;  // at the limit: accepted
  EXPECT_EQ(gain_limit_error(n), "");
}

// Found by review (2026-11-27): the H100 10-node logs start at 33 MB, and the fit put the
// inter-node start-up latency at 491 us (13x the datasheet's 38.6) and the hop latency at zero,
// so a 2-node 8-byte all-reduce cost as much as a 1,024-rank one. Latencies (and the small-message
// efficiency) are fitted only from logs with rows of at most 64 KiB on that placement: here the
// inter-node ones keep the start network's values (38.6 us and the default 2.7 us per hop), while
// AWS p5's one-node log, from 8 B, still fits the intra-node latency.
TEST(topology_fit, LatenciesNeedSmallMessages) {
  std::vector<MeasuredCollective> logs;
  for (const char* f :
       {"h100-sxm-10node_all_reduce_80.log", "aws-p5-h100-nvlink-1node_all_reduce_8.log"})
    for (auto& m : load_log(kNcclDir / f)) logs.push_back(std::move(m));
  ASSERT_EQ(logs.size(), 2u);
  ASSERT_GE(*std::ranges::min_element(logs[0].bytes), 33e6);  // large messages only
  NetworkConfig start = start_network();
  const TopologyFit fit = fit_topology(logs, start);
  EXPECT_EQ(fit.net.inter_node_latency_us, start.inter_node_latency_us);
  EXPECT_EQ(fit.net.inter_node_hop_latency_us, start.inter_node_hop_latency_us);
  EXPECT_NE(fit.net.intra_node_latency_us, start.intra_node_latency_us);
  // Every fitted member stays inside the profile reader's ranges (the efficiency went to 1e-8
  // from the datasheet bases before).
  EXPECT_GE(fit.net.bandwidth_efficiency_min, 0.001);
}

// A sweep of tiny messages says nothing about bandwidth (found by review, 2026-11-27: 8-32 B on
// 2 ranks put NVLink at 750,578 GB/s): the bandwidths keep the start's values (300 GB/s,
// 200 Gb/s), while the latency, which those rows do measure, is fitted.
TEST(topology_fit, BandwidthsNeedLargeMessages) {
  MeasuredCollective tiny;
  tiny.file = "tiny_all_reduce_2.log";
  tiny.op = "all_reduce";
  tiny.ranks = 2;
  tiny.ranks_per_node = 2;
  tiny.bytes = {8, 16, 32};
  tiny.seconds = {20e-6, 20.5e-6, 21e-6};
  tiny.lines = {1, 2, 3};
  const NetworkConfig start = start_network();
  const TopologyFit fit = fit_topology({tiny}, start);
  EXPECT_EQ(fit.net.intra_node_GBps, start.intra_node_GBps);
  EXPECT_EQ(fit.net.inter_node_Gbps, start.inter_node_Gbps);
  EXPECT_NE(fit.net.intra_node_latency_us, start.intra_node_latency_us);
  // Nor the efficiency curve, which would price 1 GB at busbw ~1 GB/s (found by the diff review):
  // 1 GB on 2 ranks at the start's 300 GB/s NVLink and 0.9 efficiency takes about
  // 1e9 / (300e9 x 0.9) = 3.7 ms; 10 ms is a loose bound far below the 1.6 s it took.
  EXPECT_EQ(fit.net.bandwidth_efficiency_min, start.bandwidth_efficiency_min);
  EXPECT_EQ(fit.net.bandwidth_efficiency_half_bytes, start.bandwidth_efficiency_half_bytes);
  NetworkConfig formula = fit.net;
  formula.fitted_collectives.clear();
  EXPECT_LT(collective_cost(CollectiveOp::kAllReduce, 1e9, {2, 2}, formula).seconds, 10e-3);
}

// Far above its largest size a fitted entry is not used: a segment fitted on 8-32 B (its
// bandwidth at the reader's clamp, 1e14 B/s) priced 1 GB at its 20 us intercept. Up to 16 x 32 =
// 512 B it is used; at 1 GB the formula prices the all-reduce.
TEST(topology_fit, FittedEntriesAreNotExtrapolatedFar) {
  NetworkConfig net = start_network();
  FittedCollective f;
  f.op = "all_reduce";
  f.ranks = 2;
  f.ranks_per_node = 2;
  f.alpha_s = 20e-6;
  f.busbw_bytes_per_second = 1e14;
  f.min_bytes = 8;
  f.max_bytes = 32;
  net.fitted_collectives = {f};
  EXPECT_EQ(collective_cost(CollectiveOp::kAllReduce, 512, {2, 2}, net).source,
            CostSource::kFitted);
  const auto far = collective_cost(CollectiveOp::kAllReduce, 1e9, {2, 2}, net);
  EXPECT_EQ(far.source, CostSource::kFormula);
  EXPECT_GT(far.seconds, 1e9 / (300e9));  // at least the bytes over the NVLink rate
}

}  // namespace
}  // namespace shardsim::calibrate
