// The presets fitted from scenarios/measurements (rebuild-profiles.sh) through the binary: the
// collective check against vTrain's measured A100 all-reduce (held-out sizes), the new `fit`
// readers end to end with their errors, and the warnings of reports on unfitted presets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "tests/cli/cli_runner.h"

namespace {

using namespace cli_test;
const fs::path kData = fs::path(SHARDSIM_MEASUREMENTS_DIR);

// vTrain's measured time of one row: min(out-of-place, in-place) ns -> s, by size in bytes.
std::map<double, double> vtrain_times(int gpus) {
  std::ifstream in(kData / ("vtrain/a100_all_reduce_" + std::to_string(gpus) + "gpu_1M_1024M.csv"));
  std::map<double, double> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line[0] == 's') continue;  // header lines
    std::stringstream s(line);
    std::string f[7];
    for (auto& x : f) std::getline(s, x, ',');
    out[std::stod(f[0])] = std::min(std::stod(f[3]), std::stod(f[5])) * 1e-9;
  }
  return out;
}

double predicted(int ranks, double bytes) {
  const auto r = shardsim({"collective", "--gpu", "a100-sxm-80gb", "--op", "all_reduce", "--bytes",
                           std::to_string(static_cast<long long>(bytes)), "--ranks",
                           std::to_string(ranks), "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["collective"]["source"], "fitted");
  return j["collective"]["seconds"];
}

// Past 16x the largest fitted size the formula prices a collective; the text says so, since
// the time may step there (found by review, 2026-11-28). dgx-h100's one-node 8-rank all_reduce
// log ends at 2^34 B (17,179,869,184), so 3e11 B is past 16x = 2.74878e11 and 1e11 is not.
TEST(cli_fitted_presets, PastTheFittedRangeTheTextSaysTheFormulaPricesIt) {
  const auto past = shardsim(
      {"collective", "--gpu", "h100-sxm", "--op", "all_reduce", "--bytes", "3e11", "--ranks", "8"});
  ASSERT_EQ(past.exit_code, 0) << past.err;
  EXPECT_NE(past.out.find("fitted entries end at 1.71799e+10 bytes; above 16x that "
                          "(2.74878e+11 bytes) the formula prices it"),
            std::string::npos)
      << past.out;
  const auto within = shardsim(
      {"collective", "--gpu", "h100-sxm", "--op", "all_reduce", "--bytes", "1e11", "--ranks", "8"});
  ASSERT_EQ(within.exit_code, 0) << within.err;
  EXPECT_NE(within.out.find("source: fitted"), std::string::npos) << within.out;
  EXPECT_EQ(within.out.find("the formula prices it"), std::string::npos) << within.out;
  // --json carries the same sentence in its warnings (until 2026-11-28 the text alone had it).
  const auto past_json = shardsim({"collective", "--gpu", "h100-sxm", "--op", "all_reduce",
                                   "--bytes", "3e11", "--ranks", "8", "--json"});
  ASSERT_EQ(past_json.exit_code, 0) << past_json.err;
  const json doc = json::parse(past_json.out);
  bool found = false;
  for (const auto& w : doc["warnings"])
    found |= w.get<std::string>().find(
                 "above 16x that (2.74878e+11 bytes) the formula prices "
                 "it") != std::string::npos;
  EXPECT_TRUE(found) << past_json.out;
}

TEST(cli_fitted_presets, A100AllReduceMatchesVtrainAtTwoMiB) {
  // The check: vTrain measured ~53 / 56 / 93 us at 2 MiB on 2 / 4 / 8 A100s (rows of
  // 2097152 B: min(53430, 51130), min(55740, 55940), min(93250, 92970) ns); the datasheet
  // formula gave 21 / 36 / 56 us. 2 MiB is on the fitted ladder: within 5%.
  for (int n : {2, 4, 8}) {
    const double measured = vtrain_times(n).at(2097152);
    EXPECT_NEAR(predicted(n, 2097152), measured, 0.05 * measured) << n << " GPUs";
  }
}

TEST(cli_fitted_presets, A100AllReduceMatchesVtrainAtHeldOutSizes) {
  // Sizes off the 2^k / 3x2^k ladder the fit used (rebuild-profiles.sh --table-fit-sizes
  // ladder): 5, 7, 10, 100, 500 and 1000 MiB were never fitted. The fit report
  // (scenarios/measurements/fits/dgx-a100.txt) gives, over all 1004 held-out rows of a table, a
  // median error of 0.35-0.72% and a worst row of 5.5-15.9% (4 GPUs at 5 MiB: 13.5%, where the
  // measured time dips between two protocol regimes). Bounds: each size within 16%, the median
  // of the six within 5%.
  for (int n : {2, 4, 8}) {
    const auto measured = vtrain_times(n);
    std::vector<double> errors;
    for (double mib : {5, 7, 10, 100, 500, 1000}) {
      const double bytes = mib * 1048576;
      const double e = std::abs(predicted(n, bytes) / measured.at(bytes) - 1);
      EXPECT_LE(e, 0.16) << n << " GPUs, " << mib << " MiB";
      errors.push_back(e);
    }
    std::ranges::sort(errors);
    EXPECT_LE((errors[2] + errors[3]) / 2, 0.05) << n << " GPUs";
  }
}

TEST(cli_fitted_presets, ReportsSayWhenAPresetIsNotFitted) {
  // v100-sxm-32gb and its node network dgx1-v100 stay datasheet presets: both warned about, in
  // the JSON warnings[] and in the text report.
  const auto j = shardsim({"memory", kExample, "--json", "--set", "cluster.gpu=v100-sxm-32gb"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json report = json::parse(j.out);
  EXPECT_EQ(report["profile"]["fitted"], false);
  EXPECT_EQ(report["network"]["name"], "dgx1-v100");
  EXPECT_EQ(report["network"]["fitted"], false);
  const std::string warnings = report["warnings"].dump();
  EXPECT_TRUE(contains(warnings, "hardware profile 'v100-sxm-32gb' is not fitted")) << warnings;
  EXPECT_TRUE(contains(warnings, "network 'dgx1-v100' is not fitted")) << warnings;
  const auto t =
      shardsim({"simulate", kExample, "--set", "cluster.gpu=b200", "--mode", "analytic"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(contains(t.out, "warning: hardware profile 'b200' is not fitted")) << t.out;
  EXPECT_TRUE(contains(t.out, "warning: network 'dgx-b200' is not fitted")) << t.out;
  // The default example runs on the fitted h100-sxm and dgx-h100: no such warning.
  const auto f = shardsim({"memory", kExample, "--json"});
  const json fitted = json::parse(f.out);
  EXPECT_EQ(fitted["profile"]["fitted"], true);
  EXPECT_EQ(fitted["network"]["fitted"], true);
  EXPECT_FALSE(contains(fitted["warnings"].dump(), "not fitted")) << fitted["warnings"];
  // A collective on an unfitted network says so too.
  const auto c = shardsim({"collective", "--gpu", "mi300x", "--op", "all_reduce", "--bytes", "1e6",
                           "--ranks", "8", "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(contains(json::parse(c.out)["warnings"].dump(), "network 'mi300x-platform'"));
}

TEST(cli_fitted_presets, A100FortyGigabytesIsDerivedFromTheEightyGigabyteMeasurements) {
  // fit --measured-on: BabelStream triad 1.70 TB/s / the 80GB part's 2.039 TB/s = 0.8337,
  // applied to the 40GB part's own datasheet 1.555 TB/s (kept).
  const auto p =
      json::parse(read_file(fs::path(SHARDSIM_SOURCE_DIR) / "scenarios/gpus/a100-sxm-40gb.json"));
  EXPECT_NEAR(p["compute"]["memory_bound_efficiency"].get<double>(), 1.70 / 2.039, 1e-12);
  EXPECT_EQ(p["hbm_bytes_per_second"], 1.555e12);
  EXPECT_EQ(p["provenance"]["fitted"], true);
  EXPECT_TRUE(contains(p["provenance"]["note"], "measured on 'a100-sxm-80gb-datasheet'"));
}

TEST(cli_fitted_presets, NewFitReadersRefuseBadInputNamingFileAndLine) {
  const auto fit = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"fit", "--base", "a100-sxm-80gb-datasheet"});
    args.insert(args.end(), {"-o", (scratch_dir() / "never_readers.json").string()});
    return shardsim(args);
  };
  const fs::path table = scratch_dir() / "t_2gpu_x.csv";
  std::ofstream(table) << "size(B),count,type,time(ns),busbw(GB/s),time(ns),busbw(GB/s)\n"
                          "1048576,262144,float,44210,23.72,45100,23.25\n"
                          "2097152,524288,float,5343O,39.25,51130,41.01\n";  // letter O
  auto r = fit({"--collective-table", table.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, table.string() + ":3: time(ns) \"5343O\"")) << r.err;
  const fs::path hbm = scratch_dir() / "hbm.csv";
  std::ofstream(hbm) << "# source: test\ngpu,test,value,unit\nG,babelstream_triad,1.7,TB/sec\n";
  r = fit({"--hbm", hbm.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, hbm.string() + ":3: unknown unit \"TB/sec\"")) << r.err;
  r = fit({"--gemm-best", hbm.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, hbm.string() + ":2: needs columns")) << r.err;
  r = fit({"--gemm", (kData / "gemm/azure_cublaslt_gemm_a100_h100_h200.csv").string(), "--device",
           "A100", "--gemm-alias", "bf16"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--gemm-alias")) << r.err;
  EXPECT_FALSE(fs::exists(scratch_dir() / "never_readers.json"));
}

TEST(cli_fitted_presets, NetworkOutputIsAUsableClusterPreset) {
  // fit --network-output writes the network alone; `collective --network FILE` reads it back and
  // uses its fitted entry for the measured placement (aws-p5 nvlink log: 8 ranks, one node).
  const fs::path net = scratch_dir() / "p5-nvlink.json";
  const auto r = shardsim(
      {"fit", "--network-base", "dgx-h100-datasheet", "--network-name", "mine", "--nccl-tests",
       (kData / "nccl-tests/aws-p5-h100-nvlink-1node_all_reduce_8.log").string(),
       "--network-output", net.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json n = json::parse(read_file(net));
  EXPECT_EQ(n["name"], "mine");
  EXPECT_EQ(n["provenance"]["fitted"], true);
  const auto c = shardsim({"collective", "--gpu", "h100-sxm", "--network", net.string(), "--op",
                           "all_reduce", "--bytes", "8", "--ranks", "8", "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json j = json::parse(c.out);
  EXPECT_EQ(j["collective"]["source"], "fitted");
  // The log's 8 B row: 12.90 us out-of-place (the preset sources quote it); the fitted latency
  // floor is within 10% of it.
  EXPECT_NEAR(j["collective"]["seconds"].get<double>(), 12.9e-6, 1.3e-6);
  EXPECT_TRUE(j["warnings"].empty());
}

}  // namespace
