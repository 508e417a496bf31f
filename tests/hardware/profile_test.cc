// Hardware profile JSON: read -> write -> read identity for every shipped preset, the committed
// JSON Schema equals the generated one, strict errors, typed provenance and the summary.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "simulator/cost/collective.h"
#include "simulator/hardware/hardware.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/presets.h"

namespace shardsim {
namespace {

template <class T, class Read>
T read_ok(const nlohmann::json& j, Read read) {
  T out;
  Diagnostics d;
  read(j, "", d, out);
  EXPECT_TRUE(d.empty()) << d.format();
  return out;
}

TEST(hardware_profile, EveryGpuPresetRoundTrips) {
  for (const auto& name : preset_names(PresetKind::kGpu)) {
    const auto first = read_ok<GpuProfile>(*find_preset(PresetKind::kGpu, name), read_gpu_profile);
    const nlohmann::json written = to_json(first);
    const auto second = read_ok<GpuProfile>(written, read_gpu_profile);
    EXPECT_TRUE(first == second) << name;
    EXPECT_EQ(written, to_json(second)) << name;
    // The presets scenarios/measurements/rebuild-profiles.sh fits say fitted; every other one
    // (the '-datasheet' versions, V100, B200, MI300X) says it is not.
    const std::set<std::string> fitted = {"a100-sxm-40gb", "a100-sxm-80gb", "h100-sxm", "h200-sxm"};
    EXPECT_EQ(first.provenance.fitted, fitted.contains(name)) << name;
    EXPECT_FALSE(first.provenance.sources.empty()) << name;
  }
}

TEST(hardware_profile, EveryNetworkPresetRoundTrips) {
  for (const auto& name : preset_names(PresetKind::kCluster)) {
    const auto first =
        read_ok<NetworkConfig>(*find_preset(PresetKind::kCluster, name), read_network_config);
    const auto second = read_ok<NetworkConfig>(to_json(first), read_network_config);
    EXPECT_TRUE(first == second) << name;
    EXPECT_EQ(to_json(first), to_json(second)) << name;
    ASSERT_TRUE(first.provenance.has_value()) << name;
    const std::set<std::string> fitted = {"dgx-a100",        "dgx-h100",     "dgx-h200",
                                          "aws-p4de",        "aws-p5",       "gcp-a3-mega",
                                          "pcie-gen3-nop2p", "pcie-gen5-p2p"};
    EXPECT_EQ(first.provenance->fitted, fitted.contains(name)) << name;
  }
}

TEST(hardware_profile, NoPresetTextWasLost) {
  // h100-sxm had 2 provenance sources and 5 compute.sources strings before the typed form
  // (git history of scenarios/gpus/h100-sxm.json, now h100-sxm-datasheet.json): 7 sources, the
  // compute ones prefixed.
  const auto g =
      read_ok<GpuProfile>(*find_preset(PresetKind::kGpu, "h100-sxm-datasheet"), read_gpu_profile);
  ASSERT_EQ(g.provenance.sources.size(), 7u);
  EXPECT_EQ(g.provenance.sources[2].description.rfind("compute: gemm_peak_efficiency 0.803", 0),
            0u);
  const auto s = profile_summary(g);
  EXPECT_EQ(s["name"], "h100-sxm-datasheet");
  EXPECT_EQ(s["fitted"], false);
  EXPECT_EQ(s["sources"], 7);
}

// The committed schema is the generated one. Regenerate after changing a field table:
//   SHARDSIM_WRITE_SCHEMA=1 build/tests/hardware/profile_test --gtest_filter='*Schema*'
// (the test then writes reports/schemas/hardware-profile.schema.json before comparing).
TEST(hardware_profile, CommittedSchemaEqualsGenerated) {
  const std::string path =
      std::string(SHARDSIM_SOURCE_DIR) + "/reports/schemas/hardware-profile.schema.json";
  const std::string generated = hardware_profile_schema().dump(2) + "\n";
  if (std::getenv("SHARDSIM_WRITE_SCHEMA")) std::ofstream(path) << generated;
  std::ifstream in(path);
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_EQ(committed.str(), generated) << "regenerate: SHARDSIM_WRITE_SCHEMA=1 " << path;
}

TEST(hardware_profile, SchemaComesFromTheTables) {
  const auto s = hardware_profile_schema();
  EXPECT_EQ(s["additionalProperties"], false);
  EXPECT_EQ(s["properties"]["memory_bytes"]["type"], "number");
  EXPECT_EQ(s["properties"]["compute"]["properties"]["kind"]["enum"],
            nlohmann::json::array({"roofline", "measured"}));
  EXPECT_EQ(s["properties"]["network"]["properties"]["fitted_collectives"]["type"], "array");
}

TEST(hardware_profile, StrictErrorsNameThePath) {
  nlohmann::json j = *find_preset(PresetKind::kGpu, "h100-sxm-datasheet");  // no gemm_points
  j["compute"]["gemm_peak_efficency"] = 0.8;                                // typo
  j["compute"]["kind"] = "measured";                                        // without gemm_points
  j["provenance"]["sources"][0]["dat"] = "2024";
  j["network"] = {{"intra_node_GBps", 450}};  // three required keys missing
  GpuProfile g;
  Diagnostics d;
  read_gpu_profile(j, "/cluster/gpu", d, g);
  const std::string text = d.format();
  EXPECT_NE(text.find("/cluster/gpu/compute"), std::string::npos) << text;
  EXPECT_NE(text.find("gemm_peak_efficiency"), std::string::npos) << text;  // suggestion
  EXPECT_NE(text.find("/cluster/gpu/compute/gemm_points"), std::string::npos) << text;
  EXPECT_NE(text.find("/cluster/gpu/provenance/sources/0"), std::string::npos) << text;
  EXPECT_NE(text.find("/cluster/gpu/network/inter_node_Gbps"), std::string::npos) << text;
}

// Found by review (2026-11-28): a bf16 peak of 1e-300 FLOP/s gave an infinite step (null in
// JSON, NaN shares in text), and a line rate below its link rate let an all-reduce run faster
// than the line. An optional peak is 0 or >= 1 FLOP/s; a declared line rate is >= its link's.
TEST(hardware_profile, TinyPeaksAndLineRatesBelowTheLinkAreRefused) {
  nlohmann::json j = *find_preset(PresetKind::kGpu, "h100-sxm-datasheet");
  j["peak_flops_per_second"]["bf16"] = 1e-300;
  j["peak_flops_per_second"]["tf32"] = 0.5;
  j["peak_flops_per_second"]["fp8"] = 0;  // none: allowed
  GpuProfile g;
  Diagnostics d;
  read_gpu_profile(j, "/cluster/gpu", d, g);
  const std::string text = d.format();
  EXPECT_NE(text.find("/cluster/gpu/peak_flops_per_second/bf16: must be 0 (no such tensor "
                      "cores) or >= 1 FLOP/s, got 1e-300"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("/cluster/gpu/peak_flops_per_second/tf32"), std::string::npos) << text;
  EXPECT_EQ(text.find("/fp8"), std::string::npos) << text;
  nlohmann::json n = *find_preset(PresetKind::kCluster, "dgx-h100-datasheet");
  n["intra_node_line_GBps"] = 0.001;  // below intra_node_GBps (450)
  NetworkConfig net;
  Diagnostics dn;
  read_network_config(n, "/net", dn, net);
  EXPECT_NE(dn.format().find("/net/intra_node_line_GBps: must be 0 (not declared) or >= "
                             "intra_node_GBps (450)"),
            std::string::npos)
      << dn.format();
  n["intra_node_line_GBps"] = 0;  // not declared: allowed
  Diagnostics d0;
  read_network_config(n, "/net", d0, net);
  EXPECT_TRUE(d0.empty()) << d0.format();
}

TEST(hardware_profile, ReadingIntoACopyLeavesTheOriginalsTables) {
  // The measured tables are shared by a profile's copies (core/shared_vector.h): reading new
  // points into a copy replaces the copy's, never the original's. a100-sxm-80gb ships 16 GEMM
  // points; the JSON read into the copy holds its first point alone.
  const nlohmann::json j = *find_preset(PresetKind::kGpu, "a100-sxm-80gb");
  const GpuProfile original = read_ok<GpuProfile>(j, read_gpu_profile);
  ASSERT_GT(original.compute.gemm_points.size(), 1u);
  const std::vector<GemmPoint> before = original.compute.gemm_points.get();
  GpuProfile copy = original;
  nlohmann::json one = j;
  one["compute"]["gemm_points"] = nlohmann::json::array({j["compute"]["gemm_points"][0]});
  Diagnostics d;
  read_gpu_profile(one, "", d, copy);
  ASSERT_TRUE(d.empty()) << d.format();
  EXPECT_EQ(copy.compute.gemm_points.size(), 1u);
  EXPECT_EQ(original.compute.gemm_points.get(), before);
  EXPECT_FALSE(copy == original);
}

TEST(hardware_profile, FittedCollectiveChecks) {
  nlohmann::json n = *find_preset(PresetKind::kCluster, "dgx-h100");
  const nlohmann::json fit = {{"op", "all_reduce"},
                              {"ranks", 8},
                              {"ranks_per_node", 16},
                              {"alpha_s", 1.3e-5},
                              {"busbw_bytes_per_second", 4.8e11}};
  n["fitted_collectives"] = {fit, fit};
  NetworkConfig net;
  Diagnostics d;
  read_network_config(n, "/net", d, net);
  const std::string text = d.format();
  // ranks_per_node 16 > ranks 8, twice; entry 1 duplicates entry 0.
  EXPECT_NE(text.find("/net/fitted_collectives/0/ranks_per_node"), std::string::npos) << text;
  EXPECT_NE(text.find("/net/fitted_collectives/1: duplicates entry 0"), std::string::npos) << text;
  // 12 ranks at 8 per node fill no nodes of equal size (found by review, 2026-11-28).
  nlohmann::json twelve = fit;
  twelve["ranks"] = 12;
  twelve["ranks_per_node"] = 8;
  n["fitted_collectives"] = nlohmann::json::array({twelve});
  Diagnostics d2;
  read_network_config(n, "/net", d2, net);
  EXPECT_NE(d2.format().find("/net/fitted_collectives/0/ranks_per_node: 12 ranks do not fill "
                             "nodes of 8"),
            std::string::npos)
      << d2.format();
}

TEST(hardware_profile, FittedSegmentsWithDisjointRangesAreAllowed) {
  // Two segments of one key with ranges [8, 4096] and [8192, 1e9] are one curve (collective.h);
  // a third overlapping [4096, 8192] duplicates both.
  nlohmann::json n = *find_preset(PresetKind::kCluster, "dgx-h100");
  nlohmann::json a = {{"op", "all_reduce"},
                      {"ranks", 8},
                      {"ranks_per_node", 8},
                      {"alpha_s", 1.3e-5},
                      {"busbw_bytes_per_second", 1e10},
                      {"min_bytes", 8},
                      {"max_bytes", 4096}};
  nlohmann::json b = a, c = a;
  b["min_bytes"] = 8192;
  b["max_bytes"] = 1e9;
  n["fitted_collectives"] = {a, b};
  NetworkConfig net;
  Diagnostics d;
  read_network_config(n, "/net", d, net);
  EXPECT_TRUE(d.empty()) << d.format();
  c["min_bytes"] = 4096;
  c["max_bytes"] = 8192;
  n["fitted_collectives"] = {a, b, c};
  Diagnostics d2;
  read_network_config(n, "/net", d2, net);
  EXPECT_NE(d2.format().find("/net/fitted_collectives/2: duplicates entry 0"), std::string::npos)
      << d2.format();
}

TEST(hardware_profile, OnlyALaterSegmentMayHaveANegativeIntercept) {
  // A negative alpha_s is the intercept of a later segment's line (calibrate/linear_fit.h); the
  // first segment of a key is a start-up latency and must be >= 0.
  nlohmann::json n = *find_preset(PresetKind::kCluster, "dgx-h100");
  nlohmann::json a = {{"op", "all_reduce"},
                      {"ranks", 2},
                      {"ranks_per_node", 2},
                      {"alpha_s", 1e-6},
                      {"busbw_bytes_per_second", 4e9},
                      {"min_bytes", 1024},
                      {"max_bytes", 262144}};
  // b: the CPU backend's 2-rank MPI all_reduce past the last-level cache (README "Calibrating a
  // cluster"): 0.81 ms at 4 MiB, 178 ms at 64 MiB, bus factor 2 (2 - 1) / 2 = 1, so
  //   busbw = (67108864 - 4194304) B / (178 - 0.81) ms = 3.55e8 B/s,
  //   alpha = 0.81 ms - 4194304 B / 3.55e8 B/s = 0.81 - 11.81 ms = -0.011 s,
  // and the line is 0.81 ms > 0 at its min_bytes.
  nlohmann::json b = a;
  b["alpha_s"] = -0.011;
  b["busbw_bytes_per_second"] = 3.55e8;
  b["min_bytes"] = 4194304;
  b["max_bytes"] = 67108864;
  n["fitted_collectives"] = {a, b};
  NetworkConfig net;
  Diagnostics d;
  read_network_config(n, "/net", d, net);
  EXPECT_TRUE(d.empty()) << d.format();
  // alone, it is the first segment (json::array: a one-element brace list `{b}` is b itself
  // under Clang and [b] under GCC; the sanitizer build, Clang's, found it)
  n["fitted_collectives"] = nlohmann::json::array({b});
  Diagnostics d2;
  read_network_config(n, "/net", d2, net);
  EXPECT_NE(d2.format().find("/net/fitted_collectives/0/alpha_s: must be >= 0 in the first"),
            std::string::npos)
      << d2.format();
}

TEST(hardware_profile, ALaterSegmentMustBePositiveFromItsMinBytes) {
  // A later segment may have a negative intercept only when its time at min_bytes is > 0:
  //   alpha_s + bus_factor(op, ranks) * min_bytes / busbw_bytes_per_second > 0.
  nlohmann::json n = *find_preset(PresetKind::kCluster, "dgx-h100");
  nlohmann::json a = {{"op", "all_reduce"},
                      {"ranks", 2},
                      {"ranks_per_node", 2},
                      {"alpha_s", 1e-6},
                      {"busbw_bytes_per_second", 4e9},
                      {"min_bytes", 1024},
                      {"max_bytes", 262144}};
  // b: -0.011 s + 1 x 4194304 B / 4e9 B/s = -0.011 + 0.00105 = -0.00995 s at min_bytes (bus
  // factor of a 2-rank all_reduce: 2 (2 - 1) / 2 = 1).
  nlohmann::json b = a;
  b["alpha_s"] = -0.011;
  b["busbw_bytes_per_second"] = 4e9;
  b["min_bytes"] = 4194304;
  b["max_bytes"] = 67108864;
  n["fitted_collectives"] = {a, b};
  NetworkConfig net;
  Diagnostics d;
  read_network_config(n, "/net", d, net);
  EXPECT_NE(d.format().find("/net/fitted_collectives/1/alpha_s: gives this segment a time <= 0 "
                            "at its min_bytes"),
            std::string::npos)
      << d.format();
  EXPECT_NE(d.format().find("= -0.011 + 1 x 4194304 / 4000000000 = -0.00995142 s"),
            std::string::npos)
      << d.format();

  // The bus factor counts: at 8 ranks, -0.9 ms + f x 1e6 B / 1e9 B/s is
  //   all_reduce  f = 2 x 7 / 8 = 1.75:  -0.9 + 1.75  = +0.85 ms  (accepted)
  //   all_gather  f = 7 / 8     = 0.875: -0.9 + 0.875 = -0.025 ms (rejected)
  // (with f = 1 both would pass).
  nlohmann::json lo = {
      {"op", "all_reduce"}, {"ranks", 8},         {"ranks_per_node", 8},          {"alpha_s", 1e-5},
      {"min_bytes", 8},     {"max_bytes", 65536}, {"busbw_bytes_per_second", 1e9}};
  nlohmann::json hi = lo;
  hi["alpha_s"] = -0.9e-3;
  hi["min_bytes"] = 1e6;
  hi["max_bytes"] = 1e9;
  n["fitted_collectives"] = {lo, hi};
  Diagnostics d2;
  read_network_config(n, "/net", d2, net);
  EXPECT_TRUE(d2.empty()) << d2.format();
  lo["op"] = hi["op"] = "all_gather";
  n["fitted_collectives"] = {lo, hi};
  Diagnostics d3;
  read_network_config(n, "/net", d3, net);
  EXPECT_NE(d3.format().find("/net/fitted_collectives/1/alpha_s: gives this segment a time <= 0"),
            std::string::npos)
      << d3.format();
}

TEST(hardware_profile, FittedBusFactorIsTheCostModelsBusFactor) {
  // The profile reader's copy of the nccl-tests bus factor table must equal the cost model's.
  for (const char* name :
       {"all_reduce", "reduce_scatter", "all_gather", "alltoall", "sendrecv", "broadcast"}) {
    const auto op = collective_from_name(name);
    ASSERT_TRUE(op.has_value()) << name;
    for (const int ranks : {2, 3, 8, 80, 2160})
      EXPECT_DOUBLE_EQ(fitted_bus_factor(name, ranks), bus_factor(*op, ranks))
          << name << " " << ranks;
  }
}

TEST(hardware_profile, ProfileNetworkIsTheScenarioDefault) {
  // cluster.gpu carries a network section and cluster.network is absent: that section is used;
  // without the section, the preset named by node.network (dgx-h100-datasheet, 450 GB/s NVLink).
  nlohmann::json gpu = *find_preset(PresetKind::kGpu, "h100-sxm-datasheet");
  nlohmann::json net = *find_preset(PresetKind::kCluster, "dgx-h100-datasheet");
  net["intra_node_GBps"] = 123;
  const nlohmann::json scenario = {{"model", {{"preset", "llama3-8b"}}},
                                   {"training", {{"seq_len", 4096}, {"global_batch", 64}}},
                                   {"cluster", {{"gpu", gpu}, {"nodes", 1}}}};
  EXPECT_EQ(scenario_from_json(scenario, "").cluster.network.intra_node_GBps, 450);
  nlohmann::json with_net = scenario;
  with_net["cluster"]["gpu"]["network"] = net;
  EXPECT_EQ(scenario_from_json(with_net, "").cluster.network.intra_node_GBps, 123);
}

}  // namespace
}  // namespace shardsim
