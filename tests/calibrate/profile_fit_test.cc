// profile_from_samples over one or more calibration samples documents and check_samples: which
// document each part of the profile comes from, what the provenance and the uses say, and the
// documents refused (with the file and item named).
#include "calibrate/profile_fit.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "simulator/cost/compute.h"
#include "simulator/hardware/hardware.h"
#include "simulator/scenario/presets.h"
#include "tests/common/samples_doc.h"

namespace shardsim::calibrate {
namespace {

using nlohmann::json;

using test_samples::samples_item;

json gemm(double flops_per_second) {
  return samples_item("gemm", "sgemm", {{"m", 512}, {"n", 512}, {"k", 512}, {"dtype", "fp32"}},
                      {{"flops", 2.0 * 512 * 512 * 512}}, {{"flops_per_second", flops_per_second}});
}

json memory_bound(double bytes_per_second) {
  return samples_item("memory_bound", "dropout_residual",
                      {{"op", "dropout_residual"}, {"rows", 1024}, {"cols", 1024}},
                      {{"bytes", 1.2e7}}, {{"bytes_per_second", bytes_per_second}});
}

// An all-reduce on `ranks` ranks, `per_node` per node, at 1 KB .. 1 MB: t = 20 us + S / 1 GB/s.
void add_all_reduce(json& items, int ranks, int per_node) {
  for (const double bytes : {1e3, 1e4, 1e5, 1e6})
    items.push_back(samples_item(
        "collective", "all_reduce",
        {{"op", "all_reduce"}, {"bytes", bytes}, {"ranks", ranks}, {"ranks_per_node", per_node}},
        {{"bytes", bytes}}, json::object(), 20e-6 + bytes / 1e9));
}

// A document of a job of `world` ranks, 2 per node (a group larger than its job is refused).
json document(json items, const std::string& backend = "cpu", int world = 2) {
  json d = test_samples::samples_document(std::move(items), backend, 2, "2026-11-27T05:00:00Z");
  d["context"]["mpi"]["world_size"] = world;
  d["context"]["mpi"]["nodes"] = (world + 1) / 2;
  return d;
}

std::string thrown(const std::vector<SamplesInput>& docs, const GpuProfile* base = nullptr) {
  try {
    (void)profile_from_samples(docs, base);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ProfileFromSamples, DevicePartsComeFromTheLastDocumentThatMeasuredThemCollectivesFromAll) {
  json a_items = json::array({gemm(1e11), memory_bound(2e10)});
  add_all_reduce(a_items, 2, 2);
  json b_items = json::array({gemm(3e11)});
  add_all_reduce(b_items, 4, 2);
  const json a = document(a_items), b = document(b_items, "cpu", 4);
  const SamplesProfile p =
      profile_from_samples({{&a, "a.json", 1e9}, {&b, "b.json", 1e9}}, nullptr);
  // CPU backend: every peak is the best sgemm of the document whose GEMMs are used, b's 3e11;
  // HBM is a's best memory-bound rate, 2e10 (b measured none).
  EXPECT_EQ(p.profile.peak.fp32, 3e11);
  EXPECT_EQ(p.profile.peak.bf16, 3e11);
  EXPECT_EQ(p.profile.hbm_bytes_per_second, 2e10);
  ASSERT_TRUE(p.profile.network.has_value());
  bool two = false, four = false;
  for (const auto& f : p.profile.network->fitted_collectives) {
    two = two || (f.op == "all_reduce" && f.ranks == 2 && f.ranks_per_node == 2);
    four = four || (f.op == "all_reduce" && f.ranks == 4 && f.ranks_per_node == 2);
  }
  EXPECT_TRUE(two && four);
  ASSERT_EQ(p.uses.size(), 2u);
  EXPECT_EQ(p.uses[0].used,
            (std::vector<std::string>{"memory_bound (1 items)", "collective all_reduce/2x2"}));
  EXPECT_EQ(p.uses[0].replaced, (std::vector<std::string>{"gemm fp32 (1 items)"}));
  EXPECT_EQ(p.uses[1].used,
            (std::vector<std::string>{"gemm fp32 (1 items)", "collective all_reduce/4x2"}));
  EXPECT_TRUE(p.uses[1].replaced.empty());
  ASSERT_EQ(p.profile.provenance.sources.size(), 2u);
  EXPECT_EQ(p.profile.provenance.sources[0].file, "a.json");
  EXPECT_TRUE(contains(p.profile.provenance.sources[0].description,
                       "measured again by a later file: gemm"));
  EXPECT_EQ(p.profile.provenance.sources[1].date, "2026-11-27");
  // Rows count from 1, items[i] from 0: the description says which row is which item.
  const int rows = p.profile.provenance.sources[0].last_row;
  EXPECT_EQ(rows, int(a_items.size()));
  EXPECT_TRUE(contains(p.profile.provenance.sources[0].description,
                       fmt::format("backend; rows 1-{} are items[0]-items[{}]): ", rows, rows - 1)))
      << p.profile.provenance.sources[0].description;
  // The network names both files.
  EXPECT_TRUE(contains(p.profile.network->description, "a.json, b.json"));
  // A CPU profile is recognised as one, so it can be the base of a later CPU fit: it says so in
  // a typed key (device_kind), not only in its description.
  EXPECT_EQ(p.profile.device_kind, "cpu");
  EXPECT_TRUE(is_cpu_profile(p.profile));
  EXPECT_EQ(thrown({{&a, "a.json", 1e9}}, &p.profile), "");
}

// Found by review (2026-11-28): validate and calibrate --base told a CPU's profile from a GPU's by
// the description text, so editing the description changed the kind. device_kind decides where
// it is given; only a profile without it (written before 2026-11-28) is read by its text.
TEST(ProfileFromSamples, TheDeviceKindKeyDecidesCpuOrGpu) {
  const std::string cpu_text = "described as a device by `shardsim calibrate --backend cpu`";
  GpuProfile g;
  g.description = "a GPU";
  EXPECT_FALSE(is_cpu_profile(g));
  g.description = cpu_text;
  EXPECT_TRUE(is_cpu_profile(g));  // no device_kind: the text of an older CPU profile
  g.device_kind = "gpu";
  EXPECT_FALSE(is_cpu_profile(g));  // the key wins over the text
  g.description = "edited by hand";
  g.device_kind = "cpu";
  EXPECT_TRUE(is_cpu_profile(g));
}

// Refitting a profile's own samples onto it replaces its segments of the measured keys, so the
// segments are the same as the first fit's (they were duplicated before, 2026-11-27).
TEST(ProfileFromSamples, RefittingOntoItsOwnProfileReplacesTheSegments) {
  json items = json::array({gemm(1e11)});
  add_all_reduce(items, 2, 2);
  const json a = document(items);
  const GpuProfile first = profile_from_samples({{&a, "a.json", 1e9}}, nullptr).profile;
  const GpuProfile again = profile_from_samples({{&a, "a.json", 1e9}}, &first).profile;
  ASSERT_TRUE(first.network && again.network);
  EXPECT_FALSE(first.network->fitted_collectives.empty());
  EXPECT_EQ(again.network->fitted_collectives, first.network->fitted_collectives);
}

// A collective row the fit does not represent (the 1 MB sample at 1e20 s beside 20 us + S / 1 GB/s
// for the others: no larger message to call it stalled) is refused for `fit`, and for
// `calibrate`, whose own fresh sweep a loaded machine stalls now and then, warned about with the
// profile still made (found 2026-11-29: 1 of 12 quick runs on a loaded 2-core VM).
TEST(ProfileFromSamples, AnUnfittedRowIsRefusedOrWarnedAbout) {
  json items = json::array({gemm(1e11)});
  add_all_reduce(items, 2, 2);
  items[4]["median_s"] = 1e20;  // the 1e6 B all-reduce
  const json doc = document(items);
  EXPECT_THROW((void)profile_from_samples({{&doc, "d.json", 1e9}}, nullptr), std::invalid_argument);
  const SamplesProfile warned =
      profile_from_samples({{&doc, "d.json", 1e9}}, nullptr, nullptr, nullptr, "", true);
  ASSERT_EQ(warned.warnings.size(), 1u);
  EXPECT_TRUE(contains(warned.warnings[0],
                       "d.json items[4]: all_reduce of 1e+06 B on 2 ranks "
                       "took 1e+20 s"))
      << warned.warnings[0];
  ASSERT_TRUE(warned.profile.network);
  EXPECT_FALSE(warned.profile.network->fitted_collectives.empty());
}

// Found by review (2026-11-28): a stalled collective sample (1 KB at 1 ms, 50x the 21 us of the
// 1 KB..1 MB line t = 20 us + S / 1 GB/s, and over 3x the larger 10 KB sample's 30 us) was fitted,
// not left out as a log's row is. Left out, the other three samples give the same segments as
// the clean 10 KB..1 MB samples alone.
TEST(ProfileFromSamples, AStalledCollectiveSampleIsLeftOutAsALogsRowIs) {
  json clean = json::array({gemm(1e11)});
  add_all_reduce(clean, 2, 2);
  json stalled = clean;
  json without = clean;
  for (auto& item : stalled)
    if (item["kind"] == "collective" && item["params"]["bytes"] == 1e3) item["median_s"] = 1e-3;
  without.erase(std::remove_if(without.begin(), without.end(),
                               [](const json& i) {
                                 return i["kind"] == "collective" && i["params"]["bytes"] == 1e3;
                               }),
                without.end());
  const json a = document(stalled), b = document(without);
  const SamplesProfile fitted = profile_from_samples({{&a, "a.json", 1e9}}, nullptr);
  const GpuProfile& got = fitted.profile;
  const GpuProfile want = profile_from_samples({{&b, "b.json", 1e9}}, nullptr).profile;
  // The report's list (found by review, 2026-11-28: it said nothing of the sample left out):
  // items[1] is the 1 KB sample (items[0] is the gemm), items[2] the 10 KB one at
  // 20 us + 1e4 B / 1e9 B/s = 30 us.
  ASSERT_EQ(fitted.uses.size(), 1u);
  ASSERT_EQ(fitted.uses[0].left_out.size(), 1u);
  const SampleLeftOut& o = fitted.uses[0].left_out[0];
  EXPECT_EQ(o.collective, "all_reduce/2x2");
  EXPECT_EQ(o.item, 1);
  EXPECT_DOUBLE_EQ(o.seconds, 1e-3);
  EXPECT_EQ(o.larger_item, 2);
  EXPECT_DOUBLE_EQ(o.larger_seconds, 20e-6 + 1e4 / 1e9);
  EXPECT_TRUE(profile_from_samples({{&b, "b.json", 1e9}}, nullptr).uses[0].left_out.empty());
  ASSERT_TRUE(got.network && want.network);
  ASSERT_EQ(got.network->fitted_collectives.size(), want.network->fitted_collectives.size());
  for (std::size_t i = 0; i < got.network->fitted_collectives.size(); ++i) {
    EXPECT_DOUBLE_EQ(got.network->fitted_collectives[i].alpha_s,
                     want.network->fitted_collectives[i].alpha_s);
    EXPECT_DOUBLE_EQ(got.network->fitted_collectives[i].busbw_bytes_per_second,
                     want.network->fitted_collectives[i].busbw_bytes_per_second);
  }
}

// Found by review (2026-11-28): a sweep times a shape plain and with B transposed, one point for
// the fit; with the GEMM tables' 2x rule a 4x pair dropped every GEMM point without a word. The
// samples fit sets no limit: 512^3 at 1e11 and 4e11 FLOP/s average to one point.
TEST(ProfileFromSamples, PlainAndTransposedItemsOfOneShapeAreOnePoint) {
  json items = json::array({gemm(1e11), gemm(4e11)});
  items[1]["params"]["trans_b"] = true;
  const json a = document(items);
  const GpuProfile g = profile_from_samples({{&a, "a.json", 1e9}}, nullptr).profile;
  EXPECT_EQ(g.compute.kind, "measured");
  ASSERT_EQ(g.compute.gemm_points.size(), 1u);
}

// CUDA: each dtype's peak is max(base peak, best GEMM measured), from the document whose GEMMs
// are used only. Found by review (2026-11-27): a first file at 1.2e15 bf16 FLOP/s, replaced by
// a second at 1e14, still raised the peak to 1.2e15. Base peak 9.894e14: stays 9.894e14.
TEST(ProfileFromSamples, AReplacedDocumentSetsNoPeak) {
  const auto bf16 = [](double rate) {
    return json::array({samples_item(
        "gemm", "bf16 gemm", {{"m", 4096}, {"n", 4096}, {"k", 4096}, {"dtype", "bf16"}},
        {{"flops", 2.0 * 4096 * 4096 * 4096}}, {{"flops_per_second", rate}})});
  };
  const json a = document(bf16(1.2e15), "cuda"), b = document(bf16(1e14), "cuda");
  GpuProfile gpu;
  gpu.name = "test-gpu";
  gpu.peak.bf16 = 9.894e14;
  const SamplesProfile p = profile_from_samples({{&a, "ca.json", 0}, {&b, "cb.json", 0}}, &gpu);
  EXPECT_EQ(p.profile.peak.bf16, 9.894e14);
  EXPECT_TRUE(p.uses[0].used.empty());
}

// A GPU base with the h200-sxm datasheet's dense peaks: fp32 6.7e13, tf32 4.947e14, fp16 and
// bf16 9.894e14 FLOP/s.
GpuProfile h200_datasheet_peaks() {
  GpuProfile gpu;
  gpu.name = "test-gpu";
  gpu.peak.fp32 = 6.7e13;
  gpu.peak.tf32 = 4.947e14;
  gpu.peak.fp16 = gpu.peak.bf16 = 9.894e14;
  return gpu;
}

// CUDA: TF32 GEMMs and fp32 (SGEMM) GEMMs are two tables, each against its own peak, the one
// the simulator prices that dtype with (gemm_peak_flops: fp32 at FP32's, tf32 at TF32's), so
// each point gives back its measured rate. Until 2026-11-28 tf32 items only raised the peak and
// fp32 points were taken against TF32's: "fp32" then meant SGEMM on a profile with such points
// and TF32 on the others, an fp32 run 6x slower on h200-sxm than on h100-sxm.
// Base: fp32 6.7e13, tf32 4.947e14 (the h200-sxm datasheet). Measured: SGEMM 5e13, TF32 4e14 on
// the same 512^3 shape. Expected: the peaks stay (neither measured rate exceeds its peak); an
// fp32 point of 5e13 / 6.7e13 and a tf32 point of 4e14 / 4.947e14.
TEST(ProfileFromSamples, Tf32AndFp32AreTablesAgainstTheirOwnPeaks) {
  json tf32 = gemm(4e14);
  tf32["params"]["dtype"] = "tf32";
  tf32["name"] = "tf32 gemm";
  const json doc = document(json::array({gemm(5e13), tf32}), "cuda");
  const GpuProfile gpu = h200_datasheet_peaks();
  const SamplesProfile p = profile_from_samples({{&doc, "gpu.json", 0}}, &gpu);
  EXPECT_EQ(p.profile.peak.tf32, 4.947e14);
  EXPECT_EQ(p.profile.peak.fp32, 6.7e13);
  ASSERT_EQ(p.profile.compute.gemm_points.size(), 2u);
  for (const auto& pt : p.profile.compute.gemm_points) {
    ASSERT_TRUE(pt.dtype == "fp32" || pt.dtype == "tf32") << pt.dtype;
    const double measured = pt.dtype == "fp32" ? 5e13 : 4e14;
    const double peak = pt.dtype == "fp32" ? 6.7e13 : 4.947e14;
    EXPECT_NEAR(pt.efficiency, measured / peak, 1e-12) << pt.dtype;
    // The simulator prices the shape back at the measured rate.
    const Dtype d = *dtype_from_name(pt.dtype);
    EXPECT_NEAR(gemm_peak_flops(d, p.profile) * pt.efficiency, measured, measured * 1e-12);
  }
}

// A measured TF32 rate above the base's TF32 peak raises it, as any dtype's does: 6e14 against
// 4.947e14 -> peak 6e14 and the point's efficiency 1.
TEST(ProfileFromSamples, AFasterTf32RateRaisesTheTf32Peak) {
  json tf32 = gemm(6e14);
  tf32["params"]["dtype"] = "tf32";
  const json doc = document(json::array({tf32}), "cuda");
  const GpuProfile gpu = h200_datasheet_peaks();
  const SamplesProfile p = profile_from_samples({{&doc, "gpu.json", 0}}, &gpu);
  EXPECT_EQ(p.profile.peak.tf32, 6e14);
  ASSERT_EQ(p.profile.compute.gemm_points.size(), 1u);
  EXPECT_EQ(p.profile.compute.gemm_points[0].dtype, "tf32");
  EXPECT_DOUBLE_EQ(p.profile.compute.gemm_points[0].efficiency, 1.0);
}

// CUDA: GEMMs are replaced per dtype. Found on the first GPU run (2026-11-27): a sweep run family
// by family (one document per dtype) kept only the last document's GEMMs. Three documents: bf16
// at 4e14, fp32 at 5e13, bf16 again at 5e14. Expected: the bf16 points come from the third
// (5e14), the fp32 ones from the second; the first is "used: nothing", its bf16 replaced.
TEST(ProfileFromSamples, GemmsAreReplacedPerDtype) {
  const auto one = [](const std::string& dtype, double rate) {
    return json::array({samples_item(
        "gemm", dtype + " gemm", {{"m", 4096}, {"n", 4096}, {"k", 4096}, {"dtype", dtype}},
        {{"flops", 2.0 * 4096 * 4096 * 4096}}, {{"flops_per_second", rate}})});
  };
  const json a = document(one("bf16", 4e14), "cuda"), b = document(one("fp32", 5e13), "cuda"),
             c = document(one("bf16", 5e14), "cuda");
  GpuProfile gpu;
  gpu.name = "test-gpu";
  gpu.peak.fp32 = 6.7e13;
  gpu.peak.fp16 = gpu.peak.bf16 = 9.894e14;
  const SamplesProfile p =
      profile_from_samples({{&a, "a.json", 0}, {&b, "b.json", 0}, {&c, "c.json", 0}}, &gpu);
  ASSERT_EQ(p.profile.compute.gemm_points.size(), 2u);
  for (const auto& point : p.profile.compute.gemm_points) {
    // efficiency = rate / peak: fp32 5e13 / 6.7e13; bf16 5e14 / 9.894e14
    const double want = point.dtype == "fp32" ? 5e13 / 6.7e13 : 5e14 / 9.894e14;
    EXPECT_NEAR(point.efficiency, want, 1e-12) << point.dtype;
  }
  EXPECT_TRUE(p.uses[0].used.empty());
  EXPECT_EQ(p.uses[0].replaced, (std::vector<std::string>{"gemm bf16 (1 items)"}));
  EXPECT_EQ(p.uses[1].used, (std::vector<std::string>{"gemm fp32 (1 items)"}));
  EXPECT_EQ(p.uses[2].used, (std::vector<std::string>{"gemm bf16 (1 items)"}));
}

// CUDA: the host link comes from host<->device copies, not device-to-device ones. Found on the
// first GPU run (2026-11-27): the quick sweep's 256 MiB device copy (2.04 TB/s) was taken for
// PCIe. Items (the full sweep's 1 GiB copies, sweep-copy.samples.json):
// host_to_device 1 GiB at 5.55e10 B/s, device_to_device 1 GiB at 2.08e12 B/s. Expected:
// pcie = 5.55e10 / kPcieCopyEfficiency (simulator/cost/collective.h: 0.8) = 6.9375e10.
TEST(ProfileFromSamples, TheHostLinkIsNotADeviceCopy) {
  const auto copy = [](const std::string& direction, double rate) {
    const double bytes = 1073741824.0;
    return samples_item("copy", "copy/" + direction, {{"bytes", bytes}, {"direction", direction}},
                        {{"bytes", bytes}}, {{"bytes_per_second", rate}}, bytes / rate);
  };
  const json doc = document(
      json::array({copy("host_to_device", 5.55e10), copy("device_to_device", 2.08e12)}), "cuda");
  GpuProfile gpu;
  gpu.name = "test-gpu";
  const SamplesProfile p = profile_from_samples({{&doc, "gpu.json", 0}}, &gpu);
  EXPECT_NEAR(p.profile.pcie_bytes_per_second, 5.55e10 / 0.8, 1.0);
}

// The description of a CUDA fit (found by review, 2026-11-27: with a base, the base's text was
// replaced by "measured ... on <host>"). Without a base: the sweep's device and host. With one:
// the base's text, then one sentence naming the device and memory_bytes; fitting the result again
// on the same device does not repeat it. memory_bytes is the device's (samples_doc.h: 8e10).
TEST(ProfileFromSamples, TheDescriptionKeepsTheBasesAndNamesTheDeviceOnce) {
  const json doc = document(json::array({gemm(1e14)}), "cuda");
  const GpuProfile alone = profile_from_samples({{&doc, "gpu.json", 0}}, nullptr).profile;
  EXPECT_EQ(alone.description,
            "measured by shardsim's calibration sweep (--backend cuda) on one Test GPU (host "
            "testhost)");
  GpuProfile base;
  base.name = "base-gpu";
  base.description = "A datasheet GPU; memory_bytes is the name's GB read as GiB.";
  base.memory_bytes = 1e11;
  const GpuProfile once = profile_from_samples({{&doc, "gpu.json", 0}}, &base).profile;
  EXPECT_TRUE(once.description.starts_with(base.description)) << once.description;
  EXPECT_TRUE(contains(once.description,
                       "on one Test GPU: the parts provenance.sources lists, "
                       "and memory_bytes (the device's total memory"))
      << once.description;
  EXPECT_EQ(once.memory_bytes, 8e10);
  const GpuProfile twice = profile_from_samples({{&doc, "gpu.json", 0}}, &once).profile;
  EXPECT_EQ(twice.description, once.description);
}

json measured_h200(const std::string& file) {
  std::ifstream in(std::string(SHARDSIM_MEASUREMENTS_DIR) + "/calibrate/h200-sxm-2026-11-27-run2/" +
                   file);
  return json::parse(in);
}

GpuProfile h200_datasheet() {
  std::ifstream in(std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/gpus/h200-sxm-datasheet.json");
  Diagnostics diags;
  GpuProfile g;
  read_gpu_profile(json::parse(in), "", diags, g);
  EXPECT_TRUE(diags.empty()) << diags.format();
  return g;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// |predicted / measured - 1| in % for the GEMM items of `doc` whose index passes `keep`, each
// predicted by gemm_cost from `g`.
std::vector<double> gemm_errors(const json& doc, const GpuProfile& g, Dtype dtype,
                                bool (*keep)(std::size_t)) {
  std::vector<double> out;
  for (std::size_t i = 0; i < doc.at("items").size(); ++i) {
    if (!keep(i)) continue;
    const json& it = doc["items"][i];
    const json& p = it["params"];
    const double predicted =
        gemm_cost(p["m"].get<double>(), p["n"].get<double>(), p["k"].get<double>(), 1, dtype, g)
            .seconds;
    out.push_back(100.0 * std::fabs(predicted / it["median_s"].get<double>() - 1.0));
  }
  return out;
}

// The H200 sweep (scenarios/measurements/calibrate/h200-sxm-2026-11-27-run2, shardsim's own run,
// GEMMs timed on random data): half of the bf16 shapes held out of the fit, predicted from the
// other half. The table interpolates in log(m, n, k) between its nearest points
// (measured_efficiency.h), so a held-out shape is predicted from its neighbours. Measured when
// this test was written: the even items fitted, the odd ones held out, median error 3.8 %,
// in-sample 2.8 % (on the first run's data, timed on the eighths: 4.4 % and 3.1 %). In-sample is
// not 0 because a point averages a shape's layouts (nn, nt, tn), which run at different rates:
// 4096x512x1024 bf16 ran 392.3 (nn) and 326.0 (nt) TFLOP/s, mean 359.2, so one layout sits 9.2 %
// from its point, the largest such gap of the file. Bounds: held out 10 % (the held-out
// target), in-sample 9.2 % (that largest gap).
TEST(ProfileFromSamples, TheH200GemmTablePredictsHeldOutShapes) {
  const json all = measured_h200("sweep-gemm-bf16.samples.json");
  json even = all;
  even["items"] = json::array();
  for (std::size_t i = 0; i < all["items"].size(); i += 2) even["items"].push_back(all["items"][i]);
  const GpuProfile base = h200_datasheet();
  const SamplesProfile fitted = profile_from_samples({{&even, "even.json", 0}}, &base);
  const auto odd = [](std::size_t i) { return i % 2 == 1; };
  const auto is_even = [](std::size_t i) { return i % 2 == 0; };
  const double held = median_of(gemm_errors(all, fitted.profile, Dtype::kBf16, odd));
  const double in_sample = median_of(gemm_errors(all, fitted.profile, Dtype::kBf16, is_even));
  std::cout << "H200 bf16 GEMM table: held-out median " << held << " %, in-sample " << in_sample
            << " %\n";
  EXPECT_LE(held, 10.0);
  EXPECT_LE(in_sample, 9.2);
}

// Since 2026-11-28 the h100-sxm preset's bf16 GEMMs are shardsim's own sweep on an H100
// (scenarios/measurements/calibrate/h100-sxm-2026-11-28: cuBLAS, uniform random data, 192
// items), as h200-sxm's are its H200 sweep's: one kind of measurement for both parts. Before, they
// came from XLA's public H100 table (gemm/xla_matmul_perf_table_h100_bf16.csv), which the sweep
// does not bear out. Here, from the two files: on the untransposed ("nn") shapes of batch 1 that
// both measure, the sweep's FLOP/s over XLA's. Measured when this test was written: 19 shapes,
// median 0.835 (0.40-0.96; 4096^3: 748.9 against 780.2 TFLOP/s). Bounds: the count exactly, the
// median below 0.9 (the sweep slower than XLA's table by more than its own run-to-run spread).
// Then the preset in-sample: its bf16 kernel time of each sweep item against the item's measured
// median. The price carries no launch overhead: the sweep timed kernels back to back, which
// already holds the gap between them (compute.h; until 2026-11-28 the model added it again and
// this test took it off). Measured when written: median absolute error 0 (most of the 155 shapes
// have one layout, whose point is its own rate), max 15.0 % (a point averages a shape's layouts,
// nn, nt and tn, which run at different rates; see TheH200GemmTablePredictsHeldOutShapes).
// Bounds: median 0.5 %, max 15 % + 1.
TEST(ProfileFromSamples, TheH100PresetIsItsOwnSweepNotXlasTable) {
  const std::string dir = SHARDSIM_MEASUREMENTS_DIR;
  std::ifstream in(dir + "/calibrate/h100-sxm-2026-11-28/sweep-gemm-bf16.samples.json");
  const json doc = json::parse(in);
  std::map<std::tuple<double, double, double>, double> xla;  // (m, n, k) -> FLOP/s
  {
    std::ifstream csv(dir + "/gemm/xla_matmul_perf_table_h100_bf16.csv");
    std::string line;
    while (std::getline(csv, line)) {
      if (line.empty() || line[0] == '#' || line.starts_with("gpu,")) continue;
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string c; std::getline(ss, c, ',');) f.push_back(c);
      ASSERT_GE(f.size(), 7u) << line;
      if (f[5] == "1")
        xla[{std::stod(f[2]), std::stod(f[3]), std::stod(f[4])}] = std::stod(f[6]) * 1e12;
    }
  }
  GpuProfile g, calibrated;
  Diagnostics diags;
  read_gpu_profile(*find_preset(PresetKind::kGpu, "h100-sxm"), "", diags, g);
  ASSERT_TRUE(diags.empty()) << diags.format();
  // The profile calibrated on the same H100 takes the same sweep's bf16 points; its streaming
  // rate (a GEMM's memory side) is the scalar fitted from its own memory-bound kernels.
  std::ifstream cal_in(std::string(SHARDSIM_SOURCE_DIR) +
                       "/scenarios/gpus/measured/h100-sxm-calibrated.json");
  read_gpu_profile(json::parse(cal_in), "", diags, calibrated);
  ASSERT_TRUE(diags.empty()) << diags.format();
  std::vector<double> ratio, in_sample, in_sample_calibrated;
  for (const json& it : doc.at("items")) {
    const json& p = it["params"];
    const double m = p["m"].get<double>(), n = p["n"].get<double>(), k = p["k"].get<double>();
    const double measured = it["median_s"].get<double>();
    if (!p["trans_a"].get<bool>() && !p["trans_b"].get<bool>())
      if (const auto x = xla.find({m, n, k}); x != xla.end())
        ratio.push_back(it["derived"]["flops_per_second"].get<double>() / x->second);
    // a measured-table price carries no launch (compute.h): the sweep's time as it was measured
    const double predicted = gemm_cost(m, n, k, 1, Dtype::kBf16, g).seconds;
    in_sample.push_back(100.0 * std::fabs(predicted / measured - 1.0));
    const double cal = gemm_cost(m, n, k, 1, Dtype::kBf16, calibrated).seconds;
    in_sample_calibrated.push_back(100.0 * std::fabs(cal / measured - 1.0));
  }
  // Found by review (2026-11-28): with a launch added to a measured GEMM's memory side, the
  // calibrated profile priced bf16 4096 x 128 x 4096 at 21.17 us against its measured 18.01 us
  // (+17.5 %). Every item stays within the layouts' own spread, as the preset's do.
  EXPECT_LT(*std::ranges::max_element(in_sample_calibrated), 16.0);
  EXPECT_LT(median_of(in_sample_calibrated), 0.5);
  std::cout << "H100 sweep / XLA's table: median " << median_of(ratio) << " over " << ratio.size()
            << " shapes; h100-sxm preset in-sample median " << median_of(in_sample) << " %, max "
            << *std::ranges::max_element(in_sample) << " % (" << in_sample.size() << " items)\n";
  ASSERT_EQ(ratio.size(), 19u);
  EXPECT_LT(median_of(ratio), 0.9);
  ASSERT_EQ(in_sample.size(), 192u);
  EXPECT_LT(median_of(in_sample), 0.5);
  EXPECT_LT(*std::ranges::max_element(in_sample), 16.0);
}

// Fitting onto a fitted profile keeps the base's segments of other keys and their provenance,
// marked "base 'NAME'" once; a re-measured key's base provenance goes, and so do the base's
// topology residuals (the formula is refit). Found by review (2026-11-27): first the kept
// segments lost their provenance, then the base's was kept whole (replaced keys included) and a
// base's base was dropped at the third fit.
TEST(ProfileFromSamples, TheBasesKeptSegmentsKeepTheirProvenance) {
  json two = json::array({gemm(1e11)}), four = json::array({gemm(1e11)}),
       eight = json::array({gemm(1e11)});
  add_all_reduce(two, 2, 2);
  add_all_reduce(four, 4, 2);
  add_all_reduce(eight, 8, 2);
  const json a = document(two), b = document(four, "cpu", 4), c = document(eight, "cpu", 8);
  const GpuProfile p1 = profile_from_samples({{&a, "two.json", 1e9}}, nullptr).profile;
  const GpuProfile p2 = profile_from_samples({{&b, "four.json", 1e9}}, &p1).profile;
  const GpuProfile p3 = profile_from_samples({{&c, "eight.json", 1e9}}, &p2).profile;
  const auto sources = [](const GpuProfile& g) {
    std::vector<std::string> out;
    for (const auto& src : g.network->provenance->sources)
      out.push_back(src.file + " " + src.description);
    return out;
  };
  ASSERT_TRUE(p3.network && p3.network->provenance);
  EXPECT_EQ(sources(p3),
            (std::vector<std::string>{"eight.json all_reduce/8x2 items",
                                      "four.json base 'calibrated': all_reduce/4x2 items",
                                      "two.json base 'calibrated': all_reduce/2x2 items"}));
  EXPECT_TRUE(p3.network->provenance->residuals.contains("all_reduce/2x2"));
  EXPECT_TRUE(p3.network->provenance->residuals.contains("topology/all_reduce/8x2/median_pct"));
  EXPECT_FALSE(p3.network->provenance->residuals.contains("topology/all_reduce/2x2/median_pct"));
  EXPECT_TRUE(contains(p3.network->description, "other segments from base network"));
  // Refitting two.json onto p1 replaces its only key: no base source is left for it.
  const GpuProfile again = profile_from_samples({{&a, "two.json", 1e9}}, &p1).profile;
  EXPECT_EQ(sources(again), (std::vector<std::string>{"two.json all_reduce/2x2 items"}));
  // The profile names its base as one source for what the samples did not measure.
  const auto& last = p2.provenance.sources.back();
  EXPECT_EQ(last.file, p1.name);
  EXPECT_TRUE(last.description.starts_with("base profile '" + p1.name + "'")) << last.description;
}

// A base network's provenance from nccl-tests logs ("FILE:op/RxN" names): a file whose name
// starts "topology" or whose path contains a re-measured key keeps the provenance of its live
// segment (found by review, 2026-11-27: both were dropped).
TEST(ProfileFromSamples, ABaseLogsNameIsNotTakenForAKey) {
  json items = json::array({gemm(1e11)});
  add_all_reduce(items, 2, 2);
  const json a = document(items);
  GpuProfile base = profile_from_samples({{&a, "a.json", 1e9}}, nullptr).profile;
  FittedCollective live;
  live.op = "all_reduce";
  live.ranks = 8;
  live.ranks_per_node = 8;
  live.alpha_s = 1e-5;
  live.busbw_bytes_per_second = 1e11;
  base.network->fitted_collectives = {live};
  Provenance logs{true, {}, {}, {}, ""};
  for (const std::string file : {"topology-p5.log", "all_reduce/2x2-old.log"}) {
    const std::string name = file + ":all_reduce/8x8";
    logs.sources.push_back({file, 1, 9, "", name});
    logs.residuals[name] = 0.01;
  }
  logs.residuals["topology RMS log error"] = 0.2;
  base.network->provenance = logs;
  const GpuProfile next = profile_from_samples({{&a, "a.json", 1e9}}, &base).profile;
  const Provenance& p = *next.network->provenance;
  EXPECT_TRUE(p.residuals.contains("topology-p5.log:all_reduce/8x8"));
  EXPECT_TRUE(p.residuals.contains("all_reduce/2x2-old.log:all_reduce/8x8"));
  EXPECT_FALSE(p.residuals.contains("topology RMS log error"));  // the formula is refit
  std::size_t kept = 0;
  for (const auto& src : p.sources) kept += src.description.ends_with(":all_reduce/8x8");
  EXPECT_EQ(kept, 2u);
}

TEST(ProfileFromSamples, TwoDocumentsMeasuringOneCollectiveAreRefusedNamingBoth) {
  json items = json::array({gemm(1e11)});
  add_all_reduce(items, 2, 2);
  const json a = document(items);
  const std::string e = thrown({{&a, "first.json", 1e9}, {&a, "second.json", 1e9}});
  EXPECT_TRUE(contains(e, "first.json and second.json both measure all_reduce on 2 ranks")) << e;
}

TEST(ProfileFromSamples, BackendsAreNotMixed) {
  const json cpu = document(json::array({gemm(1e11)})),
             cuda = document(json::array({gemm(1e14)}), "cuda");
  const std::string mixed = thrown({{&cpu, "cpu.json", 1e9}, {&cuda, "gpu.json", 0}});
  EXPECT_TRUE(contains(mixed, "one profile describes one kind of device")) << mixed;
  GpuProfile gpu;
  gpu.name = "h100-sxm";
  gpu.description = "NVIDIA H100 SXM datasheet";
  const std::string onto_gpu = thrown({{&cpu, "cpu.json", 1e9}}, &gpu);
  EXPECT_TRUE(contains(onto_gpu, "base profile 'h100-sxm' describes a GPU")) << onto_gpu;
  EXPECT_EQ(thrown({{&cuda, "gpu.json", 0}}, &gpu), "");
}

// check_samples' refusal of `doc` as "s.json", "" when it passes.
std::string message(const json& doc) {
  try {
    check_samples(doc, "s.json");
  } catch (const std::invalid_argument& e) {
    return std::string(e.what());
  }
  return std::string();
}

TEST(CheckSamples, NamesTheFileAndTheItem) {
  EXPECT_EQ(message(document(json::array({gemm(1e11)}))), "");
  json later = document(json::array({gemm(1e11)}));
  later["schema_version"] = 2;
  EXPECT_TRUE(contains(message(later), "s.json: schema_version 2 is not one this shardsim reads"));
  json unknown = document(json::array({gemm(1e11)}));
  unknown["items"][0]["kind"] = "gpu_gemm";
  EXPECT_TRUE(contains(message(unknown), "s.json: items[0].kind is \"gpu_gemm\""));
  json wrong = document(json::array({gemm(1e11), memory_bound(1e10)}));
  wrong["items"][1]["verified"] = false;
  wrong["items"][1]["name"] = "sgemm 512";
  EXPECT_TRUE(contains(message(wrong), "s.json: 1 item(s) failed verification (sgemm 512)"));
  // Parameters the fit keys on (found by review, 2026-11-28: an unknown op dropped the item and
  // dtype "fp7" was fitted as fp32, silently).
  json items = json::array({gemm(1e11)});
  add_all_reduce(items, 2, 2);
  json bad_op = document(items);
  bad_op["items"][1]["params"]["op"] = "allreduce";
  EXPECT_TRUE(contains(message(bad_op), "s.json: items[1].params.op is \"allreduce\""));
  json bad_dtype = document(json::array({gemm(1e11)}));
  bad_dtype["items"][0]["params"]["dtype"] = "fp7";
  EXPECT_TRUE(contains(message(bad_dtype), "s.json: items[0].params.dtype is \"fp7\""));
  json rocm = document(json::array({gemm(1e11)}));
  rocm["context"]["backend"]["backend"] = "rocm";
  EXPECT_TRUE(contains(message(rocm), "context.backend.backend is \"rocm\""));
  EXPECT_TRUE(contains(message(json::array()), "not a calibration samples document"));
  // A null where a string belongs is refused here, not later by the JSON library.
  for (const char* key : {"host", "cpu_model", "date_utc"}) {
    json null_field = document(json::array({gemm(1e11)}));
    null_field["context"][key] = nullptr;
    EXPECT_TRUE(contains(message(null_field), std::string("context.") + key)) << key;
  }
  for (const char* date : {"----------", "2026-13-01T00:00:00Z", "2026-11-2\u00e9T"}) {
    json bad_date = document(json::array({gemm(1e11)}));
    bad_date["context"]["date_utc"] = date;
    EXPECT_TRUE(contains(message(bad_date), "context.date_utc is")) << date;
  }
  // Found by review (2026-11-28): a world size of 0, -1, "2" or none let any group through; a
  // memory-bound item of an unknown or missing kernel class and a copy without a direction were
  // fitted as the generic curve and a host copy. Each is refused, naming the key. (The job has
  // 2 ranks per node: a world of 1 is below that.)
  for (const json& world : {json(0), json(-1), json("2"), json(), json(1), json(2.5)}) {
    json w = document(json::array({gemm(1e11)}));
    w["context"]["mpi"]["world_size"] = world;
    EXPECT_TRUE(contains(message(w), "context.mpi.world_size is")) << world.dump();
  }
  for (const json& op : {json("frobnicate"), json(3), json()}) {
    json m = document(json::array({memory_bound(1e11)}));
    m["items"][0]["params"]["op"] = op;
    EXPECT_TRUE(contains(message(m), "items[0].params.op is")) << op.dump();
  }
  // A count the fit reads that is no whole number, or none (the JSON library's message named
  // neither item nor key), and a collective under a nanosecond (its line came out NaN).
  for (const json& m : {json("256"), json(), json(256.5), json(0)}) {
    json g = document(json::array({gemm(1e11)}));
    g["items"][0]["params"]["m"] = m;
    EXPECT_TRUE(contains(message(g), "items[0].params.m is")) << m.dump();
  }
  json collectives = json::array({gemm(1e11)});
  add_all_reduce(collectives, 2, 2);
  json ranks = document(collectives);
  ranks["items"][1]["params"]["ranks"] = "2";
  EXPECT_TRUE(contains(message(ranks), "items[1].params.ranks is \"2\"")) << message(ranks);
  json tiny = document(collectives);
  tiny["items"][1]["median_s"] = 1e-300;
  EXPECT_TRUE(contains(message(tiny), "items[1].median_s is 1e-300, below 1 ns")) << message(tiny);
  for (const json& ram : {json(0), json(-1), json("1e9"), json(1e300)}) {
    json r = document(json::array({gemm(1e11)}));
    r["context"]["backend"]["host_memory_bytes"] = ram;
    EXPECT_TRUE(contains(message(r), "context.backend.host_memory_bytes is")) << ram.dump();
  }
}

// A document edited in its time and not its rate (or the reverse) was fitted from whichever the
// kind reads (issue 8 review, 2026-11-29). The sweep writes derived = work / median_s and a GEMM's
// work = 2 m n k (kernels/common/results.cc); an item that breaks either is refused, naming both.
// gemm(1e11): 2 x 512^3 = 268,435,456 FLOP at 1e11 FLOP/s, median 2.68435456 ms.
TEST(CheckSamples, AnItemsRateTimeAndWorkMustAgree) {
  json time = document(json::array({gemm(1e11)}));
  time["items"][0]["median_s"] = 1e-3;  // 2.68e11 FLOP/s by its work, 1e11 by its rate
  EXPECT_TRUE(contains(message(time),
                       "items[0].derived.flops_per_second is 1e+11, but work.flops "
                       "/ median_s is 2.68435456e+11"))
      << message(time);
  json work = document(json::array({gemm(1e11)}));
  work["items"][0]["params"]["m"] = 1024;  // 2 x 1024 x 512 x 512 = 536,870,912
  EXPECT_TRUE(contains(message(work), "items[0].work.flops is 268435456, but 2 m n k is 536870912"))
      << message(work);
  json bytes = document(json::array({memory_bound(1e10)}));
  bytes["items"][0]["work"]["bytes"] = 2.4e7;  // 1.2e7 B at 1e10 B/s: 1.2 ms, 2e10 B/s by its work
  EXPECT_TRUE(contains(message(bytes),
                       "items[0].derived.bytes_per_second is 1e+10, but work.bytes "
                       "/ median_s is 2e+10"))
      << message(bytes);
  json collectives = json::array({gemm(1e11)});
  add_all_reduce(collectives, 2, 2);
  json moved = document(collectives);
  moved["items"][1]["work"]["bytes"] = 2e3;  // params.bytes 1e3
  EXPECT_TRUE(contains(message(moved), "items[1].work.bytes is 2000, but params.bytes is 1000"))
      << message(moved);
  for (const json& t : {json(0), json(-1e-3), json("1e-3"), json()}) {
    json g = document(json::array({gemm(1e11)}));
    g["items"][0]["median_s"] = t;
    EXPECT_TRUE(contains(message(g), "items[0].median_s is")) << t.dump();
  }
  // One measurement twice (found by review, 2026-11-29: the first of a collective's size was kept
  // and a GEMM's averaged, silently): refused naming both items.
  json twice = document(json::array({gemm(1e11), gemm(2e11)}));
  EXPECT_TRUE(contains(message(twice), "items[1] measures what items[0] measured (gemm "))
      << message(twice);
  json again = document(collectives);
  again["items"].push_back(again["items"][2]);  // the 10 KB all-reduce
  EXPECT_TRUE(contains(message(again),
                       "items[5] measures what items[2] measured (collective "
                       "all_reduce of 10000 B on 2 ranks, 2 per node)"))
      << message(again);
  // The same size written as an integer, and a GEMM that differs in its `uses` alone, are the
  // same measurement (found by the diff review, 2026-11-29: the JSON text was compared).
  json written = document(collectives);
  written["items"].push_back(written["items"][2]);
  written["items"][5]["params"]["bytes"] = 10000;
  written["items"][5]["work"]["bytes"] = 10000;
  EXPECT_TRUE(contains(message(written), "items[5] measures what items[2] measured"))
      << message(written);
  json uses = document(json::array({gemm(1e11), gemm(1e11)}));
  uses["items"][1]["params"]["uses"] = json::array({"qkv"});
  EXPECT_TRUE(contains(message(uses), "items[1] measures what items[0] measured")) << message(uses);
  // ...nor a field the fit does not key on (found by a later review the same day: a GEMM with
  // "library" added, at 10x the rate, raised every peak 10x).
  json library = document(json::array({gemm(1e11), gemm(1e12)}));
  library["items"][1]["params"]["library"] = "mkl";
  EXPECT_TRUE(contains(message(library), "items[1] measures what items[0] measured"))
      << message(library);
  // Fields every item has and the fits read, missing: named, not the JSON library's message.
  for (const char* key : {"params", "derived"}) {
    json missing = document(json::array({gemm(1e11)}));
    missing["items"][0].erase(key);
    EXPECT_TRUE(contains(message(missing), fmt::format("items[0].{} is null, not an object", key)))
        << message(missing);
  }
  // schema_version 1.0 is 1, as every count here (JSON Schema's integer too).
  json one = document(json::array({gemm(1e11)}));
  one["schema_version"] = 1.0;
  EXPECT_EQ(message(one), "");
  for (const json& nodes : {json(0), json(1.5), json("1"), json(3)}) {  // world 2
    json n = document(json::array({gemm(1e11)}));
    n["context"]["mpi"]["nodes"] = nodes;
    EXPECT_TRUE(contains(message(n), "context.mpi.nodes is")) << nodes.dump();
  }
  // Fields read into the profile or the report, of another type (found by review, 2026-11-29:
  // the JSON library's message named neither field nor item), a CPU GEMM that is not sgemm (its
  // error named no file), and a group spanning more nodes than the job had (fitted as crossing
  // the network): each refused naming the field.
  json complete = document(json::array({gemm(1e11)}));
  complete["complete"] = "yes";
  EXPECT_TRUE(contains(message(complete), "s.json: complete is \"yes\", not true or false"));
  json memory = document(json::array({gemm(1e11)}), "cuda");
  memory["context"]["backend"]["device"] = {{"name", "Test GPU"}, {"memory_bytes", "80 GB"}};
  EXPECT_TRUE(contains(message(memory), "context.backend.device.memory_bytes is \"80 GB\""));
  json fp8 = document(json::array({gemm(1e11)}));
  fp8["items"][0]["params"]["dtype"] = "fp8";
  EXPECT_TRUE(contains(message(fp8),
                       "items[0].params.dtype is \"fp8\", but the CPU backend "
                       "measures fp32 GEMMs (sgemm) only"));
  json spread = json::array({gemm(1e11)});
  add_all_reduce(spread, 2, 1);      // 2 ranks at 1 per node: 2 nodes
  json one_node = document(spread);  // world 2, 2 per node: nodes (2 + 1) / 2 = 1
  EXPECT_TRUE(contains(message(one_node),
                       "items[1]: a group of 2 ranks at 1 per node spans 2 "
                       "nodes, more than the 1 of the job"))
      << message(one_node);
  // As written: accepted (the shipped sweeps' documents agree exactly, checked by fitting them).
  EXPECT_EQ(message(document(json::array({gemm(1e11), memory_bound(1e10)}))), "");
}

// A CPU document's device memory is its measuring host's RAM over the ranks on a node, as the
// document records it (context.backend.host_memory_bytes, since 2026-11-28), not the RAM of the
// machine that fits (found by review: the same samples gave different profiles on two hosts).
// 64 GiB over 2 ranks per node = 32 GiB.
TEST(ProfileFromSamples, ACpuDocumentsMemoryIsItsHostsRecordedRam) {
  json doc = document(json::array({gemm(1e11)}));
  doc["context"]["backend"]["host_memory_bytes"] = 64.0 * (1 << 30);
  EXPECT_EQ(samples_memory_bytes(doc), 32.0 * (1 << 30));
}

// Found while writing the samples fuzz target (2026-11-27): a group size of 1e300 was cast
// to int (undefined behaviour); 3 ranks in nodes of 2 is no placement either.
TEST(ProfileFromSamples, GroupSizesAreWholeNumbersOfRanks) {
  for (const auto& [ranks, per_node] : {std::pair{1e300, 2.0}, {3.0, 2.0}, {4.0, 0.5}}) {
    json items = json::array({gemm(1e11)});
    add_all_reduce(items, 4, 2);
    items[1]["params"]["ranks"] = ranks;
    items[1]["params"]["ranks_per_node"] = per_node;
    // In a job of 2^20 ranks (the most a group may have): 1e300 is refused as larger than the
    // job, the others as no placement.
    const json doc = document(items, "cpu", 1 << 20);
    const std::string e = thrown({{&doc, "g.json", 1e9}});
    EXPECT_TRUE(contains(e, "g.json: items[1]") && contains(e, "params.ranks")) << e;
  }
}

// A collective group larger than the job that wrote the document cannot have been measured by
// it (found by review, 2026-11-28: the fit took an 8-rank item of a 2-rank document as
// measured). 4 ranks in a job of 2: refused, naming the item and the world size; in a job of 4:
// fitted.
TEST(ProfileFromSamples, AGroupLargerThanItsJobIsRefused) {
  json items = json::array({gemm(1e11)});
  add_all_reduce(items, 4, 2);
  const json two = document(items, "cpu", 2), four = document(items, "cpu", 4);
  const std::string e = thrown({{&two, "two.json", 1e9}});
  EXPECT_TRUE(contains(e, "two.json: items[1].params.ranks is 4, more than the 2 ranks")) << e;
  EXPECT_TRUE(contains(e, "context.mpi.world_size")) << e;
  EXPECT_EQ(thrown({{&four, "four.json", 1e9}}), "");
}

TEST(ProfileFromSamples, AMissingKeyNamesTheDocument) {
  json doc = document(json::array({gemm(1e11)}));
  doc["items"][0]["params"].erase("m");
  const std::string e = thrown({{&doc, "short.json", 1e9}});
  EXPECT_TRUE(contains(e, "short.json: ")) << e;
}

}  // namespace
}  // namespace shardsim::calibrate
