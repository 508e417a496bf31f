// shardsim fit end to end: a profile from shared nccl-tests logs and a GEMM CSV, usable by
// `shardsim collective`; malformed logs and rank mismatches exit 2 naming file, line, numbers.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>

#include "tests/cli/cli_runner.h"
#include "tests/common/samples_doc.h"

namespace {

using namespace cli_test;

int count_warning_lines(const std::string& err) {
  int n = 0;
  for (const auto& line : lines_of(err)) n += line.rfind("warning: ", 0) == 0;
  return n;
}
const fs::path kNccl = fs::path(SHARDSIM_MEASUREMENTS_DIR) / "nccl-tests";
const fs::path kGemm = fs::path(SHARDSIM_MEASUREMENTS_DIR) / "gemm";

TEST(cli_fit, LogsAndGemmCsvMakeAUsableProfile) {
  const fs::path out = scratch_dir() / "fit_polaris.json";
  const auto r = shardsim(
      {"fit", "--nccl-tests", (kNccl / "polaris-a100-slingshot-2node_all_reduce_8.log").string(),
       "--nccl-tests", (kNccl / "polaris-a100-slingshot-8node_all_reduce_32.log").string(),
       "--gemm", (kGemm / "azure_cublaslt_gemm_a100_h100_h200.csv").string(), "--gemm-device",
       "A100", "--base", "a100-sxm-80gb-datasheet", "--json", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(r.out);
  ASSERT_EQ(report["logs"].size(), 2u);
  for (const auto& log : report["logs"]) {
    EXPECT_FALSE(log["segments"].empty());
    EXPECT_GE(log["held_out_median_abs_pct_error"].get<double>(), 0);
  }
  EXPECT_FALSE(has_null(report));
  const json profile = json::parse(read_file(out));
  EXPECT_TRUE(profile["provenance"]["fitted"].get<bool>());
  // Nothing in the fitted profile still claims to be the datasheet preset: its own name, and a
  // note naming what was fitted (2 logs, 1 table) onto which base.
  EXPECT_EQ(profile["name"], "a100-sxm-80gb-datasheet-fitted");
  // The base's node.network preset is refitted from the logs: no longer the preset's name.
  EXPECT_TRUE(profile["network"]["name"].get<std::string>().ends_with("-fitted"))
      << profile["network"]["name"];
  const std::string note = profile["provenance"]["note"];
  EXPECT_NE(note.find("2 nccl-tests log(s), 1 GEMM table(s)"), std::string::npos) << note;
  EXPECT_NE(note.find("'a100-sxm-80gb-datasheet'"), std::string::npos) << note;
  EXPECT_EQ(note.find("not fitted"), std::string::npos) << note;
  EXPECT_EQ(profile["compute"]["kind"], "measured");
  // 8 A100 rows in the CSV (1024^3 ... 802816x192x768), fp16 against the 312 TFLOP/s peak.
  EXPECT_EQ(profile["compute"]["gemm_points"].size(), 8u);
  // The fitted profile predicts a Polaris placement: 8 ranks, 4 per node (from the log's hosts).
  const auto c = shardsim({"collective", "--gpu", out.string(), "--op", "all_reduce", "--bytes",
                           "1e9", "--ranks", "8", "--gpus-per-node", "4", "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const double t = json::parse(c.out)["collective"]["seconds"];
  // polaris-a100-slingshot-2node_all_reduce_8.log at 1073741824 B, out-of-place: 52079 us
  // (busbw 36.08 GB/s); in the bandwidth regime 1e9 B takes ~52079 us x 1e9 / 2^30 = 48.5 ms.
  EXPECT_NEAR(t, 52079e-6 * 1e9 / 1073741824, 0.05 * 48.5e-3);
}

// An attention table at `name` in the scratch folder: fit's header, then `rows`.
fs::path attention_table(const std::string& name, const std::string& rows) {
  const fs::path csv = scratch_dir() / name;
  std::ofstream(csv) << "gpu,kernel,dtype,causal,head_dim,seq_len,batch,heads,fwd_bwd_tflops\n"
                     << rows;
  return csv;
}

TEST(cli_fit, AttentionTableReplacesTheBasesPointsOfItsKernels) {
  // The fitted a100-sxm-80gb preset carries 24 flash-attention-2 and 24 flash-attention-triton
  // points (scenarios/measurements/attention/). A refit from a one-row flash-attention-2 table
  // keeps the 24 Triton points and replaces the 24 FlashAttention-2 points by its one: 25 points,
  // the new one at 156 / 312 = 0.5 of the A100's fp16 peak (312 TFLOP/s).
  const fs::path csv = scratch_dir() / "fa2_one_row.csv";
  std::ofstream(csv) << "# test input\n"
                        "gpu,kernel,dtype,causal,head_dim,seq_len,batch,heads,fwd_bwd_tflops\n"
                        "A100,flash-attention-2,bf16,true,128,4096,4,16,156\n";
  const fs::path out = scratch_dir() / "fit_attention.json";
  const auto r =
      shardsim({"fit", "--base", "a100-sxm-80gb", "--attention", csv.string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json points = json::parse(read_file(out))["compute"]["attention_points"];
  ASSERT_EQ(points.size(), 25u);
  int fa2 = 0;
  for (const auto& p : points)
    if (p["kernel"] == "flash-attention-2") {
      ++fa2;
      EXPECT_DOUBLE_EQ(p["efficiency"].get<double>(), 156.0 / 312);
    }
  EXPECT_EQ(fa2, 1);
  // A profile whose points repeat a (kernel, mask, head_dim, seq) is refused, naming the point.
  json profile = json::parse(read_file(out));
  profile["compute"]["attention_points"].push_back(profile["compute"]["attention_points"][0]);
  const fs::path dup = scratch_dir() / "dup_attention.json";
  std::ofstream(dup) << profile.dump();
  const auto bad = shardsim({"collective", "--gpu", dup.string(), "--op", "all_reduce", "--bytes",
                             "1048576", "--ranks", "8"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("/compute/attention_points/25"), std::string::npos) << bad.err;
}

// Found by review (2026-11-28): one 2-node all-reduce log onto a datasheet base was exit 2,
// "3333.3 times what intra_node_line_GBps (300) allows": across nodes the NIC sets the time, so
// nothing held the NVLink link x gain, which ran to the reader's bound (and, with the gain held,
// a second review found the link fitted at 121 GB/s). Only a log whose large messages use NVLink
// fits it now (one node, or send/recv): the log alone fits and NVLink keeps the base's 300 GB/s
// (a100-sxm-80gb-datasheet's dgx-a100-datasheet network) and gain 1.
TEST(cli_fit, ALoneMultiNodeAllReduceLogFits) {
  const fs::path out = scratch_dir() / "p4de_alone.json";
  const auto r = shardsim({"fit", "--base", "a100-sxm-80gb-datasheet", "--nccl-tests",
                           (kNccl / "aws-p4de-a100-efa-2node_all_reduce_16.log").string(), "-o",
                           out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json net = json::parse(read_file(out))["network"];
  EXPECT_EQ(net["intra_node_GBps"].get<double>(), 300.0);
  EXPECT_EQ(net["intra_node_all_reduce_gain"].get<double>(), 1.0);
}

// Flags that only some inputs read, given without those inputs, were ignored with exit 0 (found
// by review, 2026-11-28). Each is exit 2 naming the flag, and nothing is written.
TEST(cli_fit, FlagsWithoutTheInputsTheyApplyToAreRefused) {
  const std::string gemm = (kGemm / "azure_cublaslt_gemm_a100_h100_h200.csv").string();
  const std::string log = (kNccl / "aws-p5-h100-nvlink-1node_all_reduce_8.log").string();
  const fs::path out = scratch_dir() / "never_flags.json";
  for (const auto& [args, flag] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--gemm", gemm, "--device", "H100", "--ranks", "4"}, "--ranks"},
           {{"--gemm", gemm, "--device", "H100", "--gpus-per-node", "4"}, "--gpus-per-node"},
           {{"--nccl-tests", log, "--table-fit-sizes", "ladder"}, "--table-fit-sizes"},
           {{"--nccl-tests", log, "--measured-on", "a100-sxm-80gb-datasheet"}, "--measured-on"},
           {{"--nccl-tests", log, "--gemm-timing", "kernel_only"}, "--gemm-timing"},
           {{"--nccl-tests", log, "--attention-timing", "kernel_only"}, "--attention-timing"},
           // 2026-11-29 (review): table and network flags without their inputs
           {{"--nccl-tests", log, "--device", "H100"}, "--device"},
           {{"--nccl-tests", log, "--gemm-device", "H100"}, "--device"},
           {{"--gemm", gemm, "--device", "H100", "--network-base", "dgx-h100"}, "--network-base"},
           {{"--gemm", gemm, "--device", "H100", "--network-name", "n"}, "--network-name"},
           // a control character in a name, blamed on the log until 2026-11-29
           {{"--nccl-tests", log, "--name",
             "a\x1b"
             "b"},
            "--name"},
           {{"--nccl-tests", log, "--network-name",
             "a\x1b"
             "b"},
            "--network-name"}}) {
    std::vector<std::string> cmd = {"fit", "--base", "h100-sxm-datasheet", "-o", out.string()};
    cmd.insert(cmd.end(), args.begin(), args.end());
    const auto r = shardsim(cmd);
    EXPECT_EQ(r.exit_code, 2) << flag << r.err;
    EXPECT_NE(r.err.find("error: " + flag + ": "), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(out));
}

// A table of a profiler's kernel durations is marked so (compute.gemm_points_timing, priced with
// the launch added; tests/cost/profile_models_test.cc). One table has one timing: points of
// another timing may not join it, while the default leaves a back-to-back table unmarked.
TEST(cli_fit, TableTimingIsRecordedAndOneTableHasOne) {
  const std::string gemm = (kGemm / "azure_cublaslt_gemm_a100_h100_h200.csv").string();
  const fs::path profiled = scratch_dir() / "kernel_only_gemm.json";
  // The datasheet base has no GEMM points: the new table sets the timing.
  auto r = shardsim({"fit", "--base", "a100-sxm-80gb-datasheet", "--gemm", gemm, "--device", "A100",
                     "--gemm-timing", "kernel_only", "-o", profiled.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(read_file(profiled))["compute"]["gemm_points_timing"], "kernel_only");
  // The same table timed back to back (the default) leaves the key out.
  const fs::path plain = scratch_dir() / "back_to_back_gemm.json";
  r = shardsim({"fit", "--base", "a100-sxm-80gb-datasheet", "--gemm", gemm, "--device", "A100",
                "-o", plain.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(json::parse(read_file(plain))["compute"].contains("gemm_points_timing"));
  // Back-to-back points added to the kernel-only table: exit 2 naming the flag, nothing written.
  const fs::path mixed = scratch_dir() / "mixed_gemm.json";
  r = shardsim({"fit", "--base", profiled.string(), "--gemm", gemm, "--device", "A100", "-o",
                mixed.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("error: --gemm-timing: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("timed kernel_only"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(mixed));
  // Kernel-only points added to it: accepted.
  r = shardsim({"fit", "--base", profiled.string(), "--gemm", gemm, "--device", "A100",
                "--gemm-timing", "kernel_only", "-o", mixed.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The fitted a100-sxm-80gb keeps 24 back-to-back Triton points when a kernel-only FA2 table
  // replaces its FA2 points: refused. A table measuring both kernels replaces all 48: accepted.
  const fs::path fa2 = attention_table("fa2_kernel_only.csv",
                                       "A100,flash-attention-2,bf16,true,128,4096,4,16,156\n");
  const fs::path att = scratch_dir() / "kernel_only_attention.json";
  r = shardsim({"fit", "--base", "a100-sxm-80gb", "--attention", fa2.string(), "--attention-timing",
                "kernel_only", "-o", att.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("error: --attention-timing: "), std::string::npos) << r.err;
  std::ofstream(fa2, std::ios::app) << "A100,flash-attention-triton,bf16,true,128,4096,4,16,60\n";
  r = shardsim({"fit", "--base", "a100-sxm-80gb", "--attention", fa2.string(), "--attention-timing",
                "kernel_only", "-o", att.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json c = json::parse(read_file(att))["compute"];
  EXPECT_EQ(c["attention_points_timing"], "kernel_only");
  EXPECT_EQ(c["attention_points"].size(), 2u);
  // Refitting that profile from the same table, back to back: every point it has is replaced,
  // though the new values equal the old, so no kernel-only point stays (found by review,
  // 2026-11-28: points were matched by value and the fit refused).
  const fs::path again = scratch_dir() / "back_to_back_attention.json";
  r = shardsim({"fit", "--base", att.string(), "--attention", fa2.string(), "-o", again.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(json::parse(read_file(again))["compute"].contains("attention_points_timing"));
}

// A two-device attention table: device A measured FA2 (120 TFLOP/s) and Triton (60), device B
// FA2 only (500), all at one key (causal, head dimension 128, sequence 4096).
fs::path two_device_attention_table(const std::string& name) {
  return attention_table(name,
                         "A,flash-attention-2,fp16,true,128,4096,4,16,120\n"
                         "A,flash-attention-triton,fp16,true,128,4096,4,16,60\n"
                         "B,flash-attention-2,fp16,true,128,4096,4,16,500\n");
}

TEST(cli_fit, AttentionDeviceTakesASiblingPartsRows) {
  // Device C (the h200-sxm-datasheet base) is not in the table; --attention-device B takes B's
  // FA2 row: 500 TFLOP/s / the base's 989.4 TFLOP/s fp16 peak = 0.50536. The Triton kernel is
  // carried over from A as for a measured device: 0.50536 x 60 / 120 = 0.25268.
  const fs::path csv = two_device_attention_table("fa_sibling.csv");
  const fs::path out = scratch_dir() / "fit_attention_sibling.json";
  const auto r = shardsim({"fit", "--base", "h200-sxm-datasheet", "--device", "C", "--attention",
                           csv.string(), "--attention-device", "B", "--attention-relative",
                           "flash-attention-triton/flash-attention-2@A", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json profile = json::parse(read_file(out));
  const json points = profile["compute"]["attention_points"];
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0]["kernel"], "flash-attention-2");
  EXPECT_NEAR(points[0]["efficiency"].get<double>(), 500 / 989.4, 1e-12);
  EXPECT_NEAR(points[1]["efficiency"].get<double>(), 500 / 989.4 * 60 / 120, 1e-12);
  EXPECT_NE(profile["provenance"].dump().find("--attention-device: a sibling part"),
            std::string::npos);
  // Without an --attention table, or naming a device the table lacks: exit 2 naming the flag.
  const auto none = shardsim({"fit", "--base", "h200-sxm-datasheet", "--attention-device", "B",
                              "-o", (scratch_dir() / "never_sibling.json").string()});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("--attention-device: needs an --attention table"), std::string::npos)
      << none.err;
  const auto absent =
      shardsim({"fit", "--base", "h200-sxm-datasheet", "--attention", csv.string(),
                "--attention-device", "Z", "-o", (scratch_dir() / "never_sibling.json").string()});
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.err.find("--attention-device: "), std::string::npos) << absent.err;
  EXPECT_NE(absent.err.find("no attention rows for device \"Z\""), std::string::npos) << absent.err;
  EXPECT_FALSE(fs::exists(scratch_dir() / "never_sibling.json"));
}

TEST(cli_fit, AttentionRelativeCarriesAKernelOverFromAnotherDevice) {
  // A two-device table: device B measured FA2 only (500 TFLOP/s on the h100-sxm-datasheet's
  // 989.4 TFLOP/s fp16 peak); A measured FA2 (120) and Triton (60). B's Triton point is
  // 500 / 989.4 x 60 / 120 = 0.25268 of the peak, and the provenance says where it came from.
  const fs::path csv = two_device_attention_table("fa_two_devices.csv");
  const fs::path out = scratch_dir() / "fit_attention_relative.json";
  const auto r = shardsim({"fit", "--base", "h100-sxm-datasheet", "--device", "B", "--attention",
                           csv.string(), "--attention-relative",
                           "flash-attention-triton/flash-attention-2@A", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 flash-attention-triton points"), std::string::npos) << r.out;
  const json profile = json::parse(read_file(out));
  const json points = profile["compute"]["attention_points"];
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[1]["kernel"], "flash-attention-triton");
  EXPECT_NEAR(points[1]["efficiency"].get<double>(), 500 / 989.4 * 60 / 120, 1e-12);
  EXPECT_NE(profile["provenance"].dump().find("not measured on this device"), std::string::npos);
  // Bad input exits 2 naming the flag: a malformed spec, not exactly one --attention table, one
  // kernel carried over twice, a kernel the device measured itself (A has Triton rows), no
  // shared key.
  const auto fails = [&](std::vector<std::string> args, const std::string& needle) {
    args.insert(args.begin(), {"fit", "--base", "h100-sxm-datasheet"});
    args.insert(args.end(), {"-o", (scratch_dir() / "never_relative.json").string()});
    const auto b = shardsim(args);
    EXPECT_EQ(b.exit_code, 2) << needle;
    EXPECT_NE(b.err.find("--attention-relative"), std::string::npos) << b.err;
    EXPECT_NE(b.err.find(needle), std::string::npos) << b.err;
  };
  fails({"--device", "B", "--attention", csv.string(), "--attention-relative", "triton@A"},
        "expected KERNEL/REFERENCE@DEVICE");
  fails({"--attention-relative", "flash-attention-triton/flash-attention-2@A"},
        "needs exactly one --attention table");
  fails({"--device", "B", "--attention", csv.string(), "--attention", csv.string(),
         "--attention-relative", "flash-attention-triton/flash-attention-2@A"},
        "needs exactly one --attention table");
  fails({"--device", "B", "--attention", csv.string(), "--attention-relative",
         "flash-attention-triton/flash-attention-2@A", "--attention-relative",
         "flash-attention-triton/flash-attention-3@A"},
        "flash-attention-triton is already carried over");
  fails({"--device", "A", "--attention", csv.string(), "--attention-relative",
         "flash-attention-triton/flash-attention-2@B"},
        "is measured on A itself");
  fails({"--device", "B", "--attention", csv.string(), "--attention-relative",
         "flash-attention-3/flash-attention-2@A"},
        "no mask, head_dim and seq_len");
  fails({"--device", "B", "--attention", csv.string(), "--attention-relative",
         "flash-attention-2/flash-attention-2@A"},
        "the kernel carried over and its reference are both \"flash-attention-2\"");
}

TEST(cli_fit, AttentionRelativeTableReadsTheRatioFromAnotherTable) {
  // This device's own table (device B: FA2 at 500 TFLOP/s) holds no row of A; the ratio comes
  // from a second, published-style table of A (FA2 120, Triton 60), as the H200 presets are fitted
  // (rebuild-profiles.sh). B's Triton point: 500 / 989.4 (h100-sxm-datasheet's fp16 peak) x 60 /
  // 120 = 0.25268, with the second table named in its provenance.
  const fs::path own =
      attention_table("fa_own_b.csv", "B,flash-attention-2,bf16,true,128,4096,4,16,500\n");
  const fs::path pub = attention_table("fa_published_a.csv",
                                       "A,flash-attention-2,fp16,true,128,4096,4,16,120\n"
                                       "A,flash-attention-triton,fp16,true,128,4096,4,16,60\n");
  const fs::path out = scratch_dir() / "fit_attention_relative_table.json";
  const auto r = shardsim({"fit", "--base", "h100-sxm-datasheet", "--attention", own.string(),
                           "--attention-relative", "flash-attention-triton/flash-attention-2@A",
                           "--attention-relative-table", pub.string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json profile = json::parse(read_file(out));
  const json points = profile["compute"]["attention_points"];
  ASSERT_EQ(points.size(), 2u);
  EXPECT_NEAR(points[0]["efficiency"].get<double>(), 500 / 989.4, 1e-12);
  EXPECT_EQ(points[1]["kernel"], "flash-attention-triton");
  EXPECT_NEAR(points[1]["efficiency"].get<double>(), 500 / 989.4 * 60 / 120, 1e-12);
  bool named = false;
  for (const auto& s : profile["provenance"]["sources"])
    named = named || (s["file"] == pub.string() &&
                      s["description"].get<std::string>().find("flash-attention-triton") !=
                          std::string::npos);
  EXPECT_TRUE(named) << profile["provenance"].dump();
  // The carried kernel's entry holds the ratio table's lines (2-3) and names the table its
  // reference came from (found by review, 2026-11-30: the lines of both files were mixed).
  for (const auto& src : profile["provenance"]["sources"]) {
    if (src["file"] != pub.string()) continue;
    EXPECT_EQ(src["first_row"], 2);
    EXPECT_EQ(src["last_row"], 3);
    EXPECT_NE(src["description"].get<std::string>().find(own.string() + " lines 2-2"),
              std::string::npos)
        << src.dump();
  }
  // A table of this device that measures the carried kernel itself: exit 2 naming that table's
  // line, not the ratio table's.
  const fs::path own_triton =
      attention_table("fa_own_b_triton.csv",
                      "B,flash-attention-2,bf16,true,128,4096,4,16,500\n"
                      "B,flash-attention-triton,bf16,true,128,4096,4,16,300\n");
  const auto itself =
      shardsim({"fit", "--base", "h100-sxm-datasheet", "--attention", own_triton.string(),
                "--attention-relative", "flash-attention-triton/flash-attention-2@A",
                "--attention-relative-table", pub.string(), "-o",
                (scratch_dir() / "never_relative_table.json").string()});
  EXPECT_EQ(itself.exit_code, 2);
  EXPECT_NE(itself.err.find(own_triton.string() + ":3: flash-attention-triton is measured on B "
                                                  "itself"),
            std::string::npos)
      << itself.err;
  // A malformed ratio table is reported under its own flag.
  const fs::path bad = scratch_dir() / "fa_bad_columns.csv";
  std::ofstream(bad) << "gpu,kernel,tflops\nA,flash-attention-2,1\n";
  const auto malformed = shardsim(
      {"fit", "--base", "h100-sxm-datasheet", "--attention", own.string(), "--attention-relative",
       "flash-attention-triton/flash-attention-2@A", "--attention-relative-table", bad.string(),
       "-o", (scratch_dir() / "never_relative_table.json").string()});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_NE(malformed.err.find("error: --attention-relative-table: " + bad.string() + ":1:"),
            std::string::npos)
      << malformed.err;
  // Without the second table the ratio is looked for in the own table, which has no A: exit 2.
  const auto alone = shardsim({"fit", "--base", "h100-sxm-datasheet", "--attention", own.string(),
                               "--attention-relative", "flash-attention-triton/flash-attention-2@A",
                               "-o", (scratch_dir() / "never_relative_table.json").string()});
  EXPECT_EQ(alone.exit_code, 2) << alone.err;
  EXPECT_NE(alone.err.find("--attention-relative"), std::string::npos) << alone.err;
  // The table without --attention-relative, or missing: exit 2 naming the flag, nothing written.
  const auto orphan = shardsim({"fit", "--base", "h100-sxm-datasheet", "--attention", own.string(),
                                "--attention-relative-table", pub.string(), "-o",
                                (scratch_dir() / "never_relative_table.json").string()});
  EXPECT_EQ(orphan.exit_code, 2);
  EXPECT_NE(orphan.err.find("--attention-relative-table: is where"), std::string::npos)
      << orphan.err;
  const auto missing =
      shardsim({"fit", "--base", "h100-sxm-datasheet", "--attention", own.string(),
                "--attention-relative", "flash-attention-triton/flash-attention-2@A",
                "--attention-relative-table", (scratch_dir() / "no_such_table.csv").string(), "-o",
                (scratch_dir() / "never_relative_table.json").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--attention-relative-table"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(scratch_dir() / "never_relative_table.json"));
}

TEST(cli_fit, AttentionTablesJoinThisDevicesOwnAndASiblingsRows) {
  // Device C measured kernel cudnn (700 TFLOP/s) itself; the two-device table has no row of C, so
  // --attention-device B takes B's FA2 (500) from it, as the H200 presets are fitted. Points
  // against h200-sxm-datasheet's 989.4 TFLOP/s fp16/bf16 peak: 700 / 989.4 and 500 / 989.4; the
  // Triton kernel from A's ratio: 500 / 989.4 x 60 / 120.
  const fs::path own = attention_table("fa_own_c.csv", "C,cudnn,bf16,true,128,4096,4,16,700\n");
  const fs::path two = two_device_attention_table("fa_join_two_devices.csv");
  const fs::path out = scratch_dir() / "fit_attention_join.json";
  const auto r = shardsim({"fit", "--base", "h200-sxm-datasheet", "--device", "C", "--attention",
                           two.string(), "--attention", own.string(), "--attention-device", "B",
                           "--attention-relative", "flash-attention-triton/flash-attention-2@A",
                           "--attention-relative-table", two.string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json points = json::parse(read_file(out))["compute"]["attention_points"];
  ASSERT_EQ(points.size(), 3u);
  std::map<std::string, double> by_kernel;
  for (const auto& p : points) by_kernel[p["kernel"]] = p["efficiency"].get<double>();
  EXPECT_NEAR(by_kernel["flash-attention-2"], 500 / 989.4, 1e-12);
  EXPECT_NEAR(by_kernel["cudnn"], 700 / 989.4, 1e-12);
  EXPECT_NEAR(by_kernel["flash-attention-triton"], 500 / 989.4 * 60 / 120, 1e-12);
  // Two tables without --attention-relative-table: which one holds the ratio is not guessed.
  auto b = shardsim({"fit", "--base", "h200-sxm-datasheet", "--device", "C", "--attention",
                     two.string(), "--attention", own.string(), "--attention-device", "B",
                     "--attention-relative", "flash-attention-triton/flash-attention-2@A", "-o",
                     (scratch_dir() / "never_join.json").string()});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find("--attention-relative: needs exactly one --attention table"),
            std::string::npos)
      << b.err;
  // One kernel measured by two tables: exit 2 naming --attention, nothing written.
  b = shardsim({"fit", "--base", "h200-sxm-datasheet", "--device", "C", "--attention", own.string(),
                "--attention", own.string(), "-o", (scratch_dir() / "never_join.json").string()});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find("--attention: "), std::string::npos) << b.err;
  EXPECT_NE(b.err.find("kernel cudnn is also measured by an earlier --attention table"),
            std::string::npos)
      << b.err;
  // --attention-device that no table needs (each has this device's rows): exit 2 rather than
  // silently unused (until 2026-11-30 it replaced those rows).
  b = shardsim({"fit", "--base", "h200-sxm-datasheet", "--device", "C", "--attention", own.string(),
                "--attention-device", "B", "-o", (scratch_dir() / "never_join.json").string()});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find("--attention-device: no --attention table needed it"), std::string::npos)
      << b.err;
  EXPECT_FALSE(fs::exists(scratch_dir() / "never_join.json"));
  // Without --device, a table of the sibling alone is still the sibling's (its provenance says
  // so), not taken as this device's own rows.
  const fs::path b_only =
      attention_table("fa_b_only.csv", "B,flash-attention-2,fp16,true,128,4096,4,16,500\n");
  const fs::path sib = scratch_dir() / "fit_attention_sibling_only.json";
  b = shardsim({"fit", "--base", "h200-sxm-datasheet", "--attention", b_only.string(),
                "--attention-device", "B", "-o", sib.string()});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(read_file(sib).find("--attention-device: a sibling part"), std::string::npos);
  // What is wrong inside a table stays --attention's, also when the table is read for the
  // sibling's rows; a table of several devices none of which is clearly this one is not read as
  // the sibling's (both found by review, 2026-11-30).
  const fs::path bad_row =
      attention_table("fa_bad_row.csv", "B,flash-attention-2,bf16,true,abc,4096,4,16,500\n");
  b = shardsim({"fit", "--base", "h200-sxm-datasheet", "--attention", bad_row.string(),
                "--attention-device", "B", "-o", (scratch_dir() / "never_join.json").string()});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find("error: --attention: " + bad_row.string() + ":2:"), std::string::npos)
      << b.err;
  const fs::path ambiguous = attention_table("fa_ambiguous.csv",
                                             "C1,flash-attention-2,bf16,true,128,4096,4,16,400\n"
                                             "C2,flash-attention-2,bf16,true,128,4096,4,16,410\n"
                                             "B,flash-attention-2,bf16,true,128,4096,4,16,500\n");
  b = shardsim({"fit", "--base", "h200-sxm-datasheet", "--device", "C", "--attention",
                ambiguous.string(), "--attention-device", "B", "-o",
                (scratch_dir() / "never_join.json").string()});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find("error: --attention: "), std::string::npos) << b.err;
  EXPECT_NE(b.err.find("rows of 2 devices"), std::string::npos) << b.err;
  EXPECT_FALSE(fs::exists(scratch_dir() / "never_join.json"));
}

TEST(cli_fit, MalformedLogNamesFileAndLine) {
  const fs::path bad = scratch_dir() / "bad_all_reduce_8.log";
  std::ofstream(bad) << "# nThread 1\n"
                        "#  size count type redop root time algbw busbw #wrong time algbw busbw "
                        "#wrong\n"
                        "   1024   256 float sum -1 12.0 zz 0.1 0 12.0 0.1 0.1 0\n";
  const fs::path out = scratch_dir() / "never.json";
  const auto r =
      shardsim({"fit", "--nccl-tests", bad.string(), "--base", "h100-sxm", "-o", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, bad.string() + ":3:")) << r.err;  // the data row is line 3
  EXPECT_FALSE(fs::exists(out));
}

// A 16-rank all-reduce log in the scratch folder: nccl-tests' column header, then `rows`.
fs::path write_log(const std::string& name, const std::string& rows) {
  const fs::path log = scratch_dir() / name;
  std::ofstream(log) << "#  size count type redop root time algbw busbw #wrong time algbw busbw "
                        "#wrong\n"
                     << rows;
  return log;
}

// A size the log measured twice: the report names the row left and the row kept, the faster
// (collective_fit.ARepeatedSizeKeepsTheFasterRowAndSaysSo has the same rows: 4096 B at 120 us
// on line 3 and at 100 us on line 5).
TEST(cli_fit, ARepeatedSizeIsReported) {
  const fs::path log =
      write_log("repeated_all_reduce_16.log",
                "   2048   512 float sum -1 90.0 0.02 0.04 0 90.0 0.02 0.04 0\n"
                "   4096  1024 float sum -1 120.0 0.03 0.06 0 120.0 0.03 0.06 0\n"
                "   8192  2048 float sum -1 110.0 0.07 0.14 0 110.0 0.07 0.14 0\n"
                "   4096  1024 float sum -1 100.0 0.04 0.08 0 100.0 0.04 0.08 0\n");
  const std::string out = (scratch_dir() / "fit_repeated.json").string();
  auto r = shardsim({"fit", "--nccl-tests", log.string(), "--base", "h100-sxm", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(
      contains(r.out + r.err, "line 3 repeats the size of line 5: 120.0 us against 100.0 us"))
      << r.out << r.err;
  r = shardsim({"fit", "--nccl-tests", log.string(), "--base", "h100-sxm", "-o", out, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(r.out);
  const json& rep = report["logs"][0]["repeated"];
  ASSERT_EQ(rep.size(), 1u) << rep;
  EXPECT_EQ(rep[0]["line"], 3);
  EXPECT_EQ(rep[0]["kept_line"], 5);
  EXPECT_NEAR(rep[0]["seconds"].get<double>(), 120e-6, 1e-12);  // 120.0 us, in seconds
  EXPECT_NEAR(rep[0]["kept_seconds"].get<double>(), 100e-6, 1e-12);
}

// Found by review (2026-11-28): a 1e300 us time, left out as a stalled run, was printed with all
// its 300 digits. From 10 s the report gives seconds to 4 significant digits (1e300 us = 1e294 s;
// since 2026-11-29, when a time near the double limit printed "inf us").
TEST(cli_fit, AHugeLeftOutTimeIsPrintedShort) {
  const fs::path log =
      write_log("huge_all_reduce_16.log",
                "   1024   256 float sum -1 1e300 0.00 0.00 0 1e300 0.00 0.00 0\n"
                "   2048   512 float sum -1 90.0 0.02 0.04 0 90.0 0.02 0.04 0\n"
                "   4096  1024 float sum -1 100.0 0.04 0.08 0 100.0 0.04 0.08 0\n"
                "   8192  2048 float sum -1 110.0 0.07 0.14 0 110.0 0.07 0.14 0\n");
  const std::string out = (scratch_dir() / "fit_huge.json").string();
  const auto r = shardsim({"fit", "--nccl-tests", log.string(), "--base", "h100-sxm", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "line 2 left out: 1e+294 s, over 3x the 90.0 us")) << r.out;
}

// Found by review (2026-11-28): a segment whose time does not grow with size carries a busbw of
// 1e14 B/s (calibrate::kFlatBusbw, which stands for "no bandwidth term"), and the report printed
// it as "100000.00 GB/s". Four sizes at 50 us each make one flat segment; the text says "flat".
TEST(cli_fit, AFlatSegmentIsPrintedAsFlatNotAsARate) {
  const fs::path log = write_log("flat_all_reduce_16.log",
                                 "   1024   256 float sum -1 50.0 0.02 0.04 0 50.0 0.02 0.04 0\n"
                                 "   2048   512 float sum -1 50.0 0.04 0.08 0 50.0 0.04 0.08 0\n"
                                 "   4096  1024 float sum -1 50.0 0.08 0.15 0 50.0 0.08 0.15 0\n"
                                 "   8192  2048 float sum -1 50.0 0.16 0.31 0 50.0 0.16 0.31 0\n");
  const std::string out = (scratch_dir() / "fit_flat.json").string();
  const auto r = shardsim({"fit", "--nccl-tests", log.string(), "--base", "h100-sxm", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "busbw flat (time constant over the segment)")) << r.out;
  EXPECT_FALSE(contains(r.out, "100000.00 GB/s")) << r.out;
}

// Found by review (2026-11-29): rows each under the line rate can fit a last segment steeper
// than the fabric, and that segment prices sizes up to 16 x the log's largest
// (kFittedExtrapolation). Three all-reduce rows on 8 H100s: 32 MiB in 182.87 us, 64 MiB in 250 us,
// 128 MiB in 300 us (algbw 183.49, 268.44, 447.39 GB/s, each under NVLink's 450 GB/s line: a rank
// moves S bytes). The fit makes them one segment; its least-squares line has a slope of about 1.75
// / 1,473 GB/s per byte (the error message prints the busbw), so at 16 x 128 MiB = 2 GiB it gives
// about 2.7 ms, where the line rate needs 2^31 B / 450 GB/s = 4.77 ms. Exit 2, no file; the error
// names the last row, line 4. (The flat 50 us segment above passes: at 16 x 8192 B the line needs
// 0.3 us.)
TEST(cli_fit, ALastSegmentFasterThanTheLineWhereItIsUsedIsRefused) {
  const fs::path log = write_log(
      "steep_all_reduce_8.log",
      "    33554432   4194304 double sum -1 182.87 183.49 321.10 0 182.87 183.49 321.10 0\n"
      "    67108864   8388608 double sum -1 250.00 268.44 469.76 0 250.00 268.44 469.76 0\n"
      "   134217728  16777216 double sum -1 300.00 447.39 782.94 0 300.00 447.39 782.94 0\n");
  const fs::path out = scratch_dir() / "steep_net.json";
  const auto r = shardsim({"fit", "--nccl-tests", log.string(), "--base", "h100-sxm-datasheet",
                           "--network-output", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err,
                       "steep_all_reduce_8.log:4: all_reduce on 8 ranks (8 per node): the "
                       "fit's last segment"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "measure larger sizes")) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// A GEMM shape measured in two --gemm tables keeps the faster point and is reported; a shape the
// base profile already holds is replaced by the new measurement. Found by review (2026-11-29):
// `--gemm T --gemm T` stored every point twice (16 for the Azure table's 8 A100 fp16 rows) and
// moved predictions, and a base's points of the same shapes stayed beside the new ones.
TEST(cli_fit, AGemmShapeMeasuredTwiceIsKeptOnce) {
  const std::string gemm = (kGemm / "azure_cublaslt_gemm_a100_h100_h200.csv").string();
  const auto fit = [&](const std::vector<std::string>& extra, const std::string& base,
                       const std::string& name) {
    std::vector<std::string> args = {"fit", "--gemm", gemm};
    args.insert(args.end(), extra.begin(), extra.end());
    const std::string out = (scratch_dir() / name).string();
    for (const std::string& a : {std::string("--gemm-device"), std::string("A100"),
                                 std::string("--base"), base, std::string("-o"), out})
      args.push_back(a);
    return std::pair{shardsim(args), out};
  };
  const auto [once, once_out] = fit({}, "a100-sxm-80gb-datasheet", "gemm_once.json");
  ASSERT_EQ(once.exit_code, 0) << once.err;
  const auto [twice, twice_out] =
      fit({"--gemm", gemm}, "a100-sxm-80gb-datasheet", "gemm_twice.json");
  ASSERT_EQ(twice.exit_code, 0) << twice.err;
  const json a = json::parse(read_file(once_out)), b = json::parse(read_file(twice_out));
  EXPECT_EQ(a["compute"]["gemm_points"].size(), 8u);  // the table's 8 A100 rows
  EXPECT_EQ(b["compute"]["gemm_points"], a["compute"]["gemm_points"]);
  EXPECT_TRUE(contains(twice.err, "fp16 4096x4096x4096 is also in " + gemm)) << twice.err;
  // The fitted A100 preset holds these 8 shapes (rebuild-profiles.sh fits the same table): they
  // are replaced, not doubled.
  const auto [over, over_out] = fit({}, "a100-sxm-80gb", "gemm_over_base.json");
  ASSERT_EQ(over.exit_code, 0) << over.err;
  const json base =
      json::parse(read_file(fs::path(SHARDSIM_SOURCE_DIR) / "scenarios/gpus/a100-sxm-80gb.json"));
  EXPECT_EQ(json::parse(read_file(over_out))["compute"]["gemm_points"].size(),
            base["compute"]["gemm_points"].size());
  EXPECT_TRUE(contains(over.out, "replaces 8 of the base's points of the same shapes")) << over.out;
}

TEST(cli_fit, RanksDisagreeingWithTheLogIsAnError) {
  // The log prints 16 "# Rank" lines (2 nodes x 8 H100).
  const auto r = shardsim(
      {"fit", "--nccl-tests", (kNccl / "gcp-a3mega-h100-tcpxo-2node_all_reduce_16.log").string(),
       "--ranks", "8", "--base", "h100-sxm", "-o", (scratch_dir() / "never2.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "16 ranks")) << r.err;
  EXPECT_TRUE(contains(r.err, "--ranks is 8")) << r.err;
}

// Found by review (2026-11-27): --ranks 0 was refused with CLI11's "Value 0 not in range
// 0.000000 to 1797...", the whole of DBL_MAX.
TEST(cli_fit, RanksBelowOneAreRefusedPlainly) {
  const auto r = shardsim({"fit", "--nccl-tests", "x.log", "--ranks", "0"});
  EXPECT_EQ(r.exit_code, 2);
  // 0 is a whole number, below the least (whole_number.h).
  EXPECT_TRUE(contains(r.err, "--ranks: 0 is out of range 1 to 2147483647")) << r.err;
  EXPECT_FALSE(contains(r.err, "not in range")) << r.err;
  // CLI11 would read "012" as octal 10: refused rather than checked as 12 and used as 10.
  const auto octal = shardsim({"fit", "--nccl-tests", "x.log", "--ranks", "012"});
  EXPECT_EQ(octal.exit_code, 2);
  EXPECT_TRUE(contains(octal.err, "no leading zero")) << octal.err;
}

// Tables are divided by the device as --samples left it (found by review, 2026-11-29: they were
// divided by the base before the samples, so the profile contradicted them). A CUDA samples
// document whose bf16 4096^3 GEMM runs at 1.2e15 FLOP/s raises h100-sxm-datasheet's bf16 peak
// from 9.894e14 to 1.2e15 (peak = max(base, best GEMM)); a --gemm row of 600 TFLOP/s at 2048^3
// is then 6e14 / 1.2e15 = 0.5 of that peak, which prices it at the measured 600 TFLOP/s (it was
// 6e14 / 9.894e14 = 0.6064, priced at 727.7).
// A --hbm triad beside samples that measured memory-bound kernels would set the same rate twice:
// exit 2 naming the table's line, nothing written.
TEST(cli_fit, TablesAreTakenAgainstTheDeviceTheSamplesMeasured) {
  using test_samples::samples_item;
  const fs::path samples = scratch_dir() / "peak_raising.samples.json";
  std::ofstream(samples)
      << test_samples::samples_document(
             json::array({samples_item(
                 "gemm", "bf16 gemm", {{"m", 4096}, {"n", 4096}, {"k", 4096}, {"dtype", "bf16"}},
                 {{"flops", 2.0 * 4096 * 4096 * 4096}}, {{"flops_per_second", 1.2e15}})}),
             "cuda")
             .dump();
  const fs::path gemm = scratch_dir() / "after_samples.csv";
  std::ofstream(gemm) << "gpu,dtype,m,n,k,tflops\nH100,bf16,2048,2048,2048,600\n";
  const fs::path out = scratch_dir() / "after_samples.json";
  const auto r = shardsim({"fit", "--base", "h100-sxm-datasheet", "--samples", samples.string(),
                           "--gemm", gemm.string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json p = json::parse(read_file(out));
  EXPECT_DOUBLE_EQ(p["peak_flops_per_second"]["bf16"].get<double>(), 1.2e15);
  bool found = false;
  for (const json& point : p["compute"]["gemm_points"])
    if (point["m"] == 2048 && point["dtype"] == "bf16") {
      found = true;
      EXPECT_NEAR(point["efficiency"].get<double>(), 0.5, 1e-12);
    }
  EXPECT_TRUE(found) << p["compute"]["gemm_points"].dump();
  // The provenance names the device the efficiencies are against as the samples left it.
  EXPECT_TRUE(contains(p["provenance"].dump(), "dense peak of h100-sxm-datasheet with --samples"))
      << p["provenance"].dump();

  const fs::path mb = scratch_dir() / "memory_bound.samples.json";
  std::ofstream(mb) << test_samples::samples_document(
                           json::array({samples_item(
                               "memory_bound", "dropout_residual",
                               {{"op", "dropout_residual"}, {"rows", 1024}, {"cols", 1024}},
                               {{"bytes", 1.2e7}}, {{"bytes_per_second", 2.5e12}})}),
                           "cuda")
                           .dump();
  const fs::path hbm = scratch_dir() / "triad.csv";
  std::ofstream(hbm) << "gpu,test,value,unit\nH100,babelstream_triad,2.97,TB/s\n";
  const fs::path never = scratch_dir() / "never_twice.json";
  const auto twice = shardsim({"fit", "--base", "h100-sxm-datasheet", "--samples", mb.string(),
                               "--hbm", hbm.string(), "-o", never.string()});
  EXPECT_EQ(twice.exit_code, 2) << twice.err;
  EXPECT_TRUE(contains(twice.err,
                       "triad.csv:2: babelstream_triad measures what --samples "
                       "measured of this device too (its memory-bound rate)"))
      << twice.err;
  EXPECT_FALSE(fs::exists(never));
}

// A best-shape table with several rows for the device: the fastest bf16 row gives
// compute.gemm_peak_efficiency. On the A100 datasheet base (312 TFLOP/s dense BF16,
// scenarios/gpus/a100-sxm-80gb-datasheet.json) the 270 TFLOP/s row gives 270 / 312 = 0.8654.
// Found by review (2026-11-27): the first row was taken (0.303 from 300 when 750 was listed on
// an H100).
TEST(cli_fit, GemmBestTakesTheFastestRow) {
  const fs::path csv = scratch_dir() / "best_rows.csv";
  std::ofstream(csv) << "gpu,dtype,m,n,k,tflops\nA100,bf16,1024,1024,1024,200\n"
                        "A100,bf16,4096,4096,4096,270\nA100,fp16,4096,4096,4096,280\n";
  const fs::path out = scratch_dir() / "best_rows.json";
  const auto r = shardsim({"fit", "--gemm-best", csv.string(), "--base", "a100-sxm-80gb-datasheet",
                           "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json profile = json::parse(read_file(out));
  EXPECT_NEAR(profile["compute"]["gemm_peak_efficiency"].get<double>(), 270.0 / 312.0, 1e-4);
}

// Figures no GPU reaches are warned about, and the profile is still written (a slow device is no
// error). On the A100 datasheet base (312 TFLOP/s dense FP16 and BF16, 2.039 TB/s HBM,
// scenarios/gpus/a100-sxm-80gb-datasheet.json):
// - a GEMM table in GFLOP/s read as TFLOP/s: 8192^3 at 0.2537 "TFLOP/s" is 0.2537 / 312 =
//   0.0813 % of the peak, its fastest product with m, n, k >= 2048, below the 5 % floor; the 64^3
//   row does not count (0.1 TFLOP/s, 0.032 %, is what a GPU gives such a small product);
// - a best-shape row of 5 TFLOP/s: 5 / 312 = 1.6 %;
// - a triad of 0.05 TB/s (MB/s read as GB/s, say): 0.05 / 2.039 = 2.45 %.
// No warning: the Azure table's A100 rows (119-257 TFLOP/s, at least 38 % of the peak), and a
// decode-style skinny table on the H100 datasheet base (989 TFLOP/s dense BF16): 16 x 8192 x 8192
// at 48 TFLOP/s is 4.85 %, but it is bandwidth-bound, not a unit error (found by review,
// 2026-11-29: it was warned about).
TEST(cli_fit, ImplausiblySlowFitsAreWarnedAbout) {
  const fs::path gemm = scratch_dir() / "gflops.csv";
  std::ofstream(gemm) << "gpu,dtype,m,n,k,tflops\nA100,fp16,64,64,64,0.1\n"
                         "A100,fp16,4096,4096,4096,0.228\nA100,fp16,8192,8192,8192,0.2537\n";
  const fs::path best = scratch_dir() / "slow_best.csv";
  std::ofstream(best) << "gpu,dtype,m,n,k,tflops\nA100,bf16,4096,4096,4096,5\n";
  const fs::path hbm = scratch_dir() / "slow_hbm.csv";
  std::ofstream(hbm) << "gpu,test,value,unit\nA100,babelstream_triad,0.05,TB/s\n";
  const fs::path out = scratch_dir() / "slow.json";
  const auto r =
      shardsim({"fit", "--gemm", gemm.string(), "--gemm-best", best.string(), "--hbm", hbm.string(),
                "--base", "a100-sxm-80gb-datasheet", "-o", out.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out));
  EXPECT_TRUE(contains(r.err, "warning: " + gemm.string() +
                                  ": fp16 GEMMs: the fastest measured product with m, n and k "
                                  "of at least 2048 (8192 x 8192 x 8192) runs at 0.0813 % of"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "warning: " + best.string() +
                                  ": compute.gemm_peak_efficiency (the best-shape GEMM's share of "
                                  "the peak) 1.6 %"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "warning: " + hbm.string() +
                                  ": compute.memory_bound_efficiency (the triad's share of the "
                                  "HBM bandwidth) 2.45 %"))
      << r.err;
  EXPECT_EQ(count_warning_lines(r.err), 3) << r.err;
  // The JSON report carries each warning on its input.
  const json report = json::parse(r.out);
  int warned = 0;
  for (const auto& in : report["inputs"]) warned += in.contains("warnings");
  EXPECT_EQ(warned, 3) << report.dump(1);

  const auto azure = shardsim(
      {"fit", "--gemm",
       (fs::path(SHARDSIM_MEASUREMENTS_DIR) / "gemm/azure_cublaslt_gemm_a100_h100_h200.csv")
           .string(),
       "--device", "A100", "--base", "a100-sxm-80gb-datasheet", "-o",
       (scratch_dir() / "azure.json").string()});
  ASSERT_EQ(azure.exit_code, 0) << azure.err;
  EXPECT_FALSE(contains(azure.err, "warning")) << azure.err;
  // Below the profile's 1 % floor a best-shape or triad figure is exit 2 at its line with the
  // same hint: 2.7 "TFLOP/s" (PFLOP/s numbers) is 2.7 / 312 = 0.865 %; a triad of 0.0017 TB/s
  // (TB/s figures labelled GB/s: 1.7 GB/s) is 0.0017 / 2.039 = 0.0834 %.
  const auto refused = [](const std::string& flag, const std::string& name, const std::string& csv,
                          const std::string& fragment) {
    const fs::path file = scratch_dir() / name;
    std::ofstream(file) << csv;
    const auto run = shardsim({"fit", flag, file.string(), "--base", "a100-sxm-80gb-datasheet",
                               "-o", (scratch_dir() / "never.json").string()});
    EXPECT_EQ(run.exit_code, 2) << flag;
    EXPECT_TRUE(contains(run.err, file.string() + ":2: " + fragment)) << run.err;
  };
  refused("--gemm-best", "tiny_best.csv", "gpu,dtype,m,n,k,tflops\nA100,bf16,4096,4096,4096,2.7\n",
          "the best-shape bf16 row runs at 0.865 % of");
  refused("--hbm", "tiny_hbm.csv", "gpu,test,value,unit\nA100,babelstream_triad,1.7,GB/s\n",
          "the triad runs at 0.0834 % of");

  const fs::path skinny = scratch_dir() / "decode.csv";
  std::ofstream(skinny) << "gpu,dtype,m,n,k,tflops\nH100,bf16,16,8192,8192,48\n";
  const auto decode = shardsim({"fit", "--gemm", skinny.string(), "--base", "h100-sxm-datasheet",
                                "-o", (scratch_dir() / "decode.json").string()});
  ASSERT_EQ(decode.exit_code, 0) << decode.err;
  EXPECT_FALSE(contains(decode.err, "warning")) << decode.err;
}

// A UTF-8 byte-order mark and spaces around the commas are not part of the column names (found
// by review, 2026-11-27: "needs columns m, n, k ..." though they were there); a fractional
// dimension is refused naming the line.
TEST(cli_fit, GemmCsvHeadersAreTrimmedAndDimensionsWhole) {
  const fs::path csv = scratch_dir() / "bom_gemm.csv";
  // The mark sits on a required column (dtype): unskipped, "\xEF\xBB\xBFdtype" is no column.
  std::ofstream(csv) << "\xEF\xBB\xBF"
                        "dtype, m, n, k, tflops\nbf16, 4096, 4096, 4096, 270\n";
  const fs::path out = scratch_dir() / "bom_gemm.json";
  const auto ok = shardsim(
      {"fit", "--gemm", csv.string(), "--base", "a100-sxm-80gb-datasheet", "-o", out.string()});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  // one measured point: 270 TFLOP/s over the datasheet's 312 TFLOP/s dense BF16 peak
  const json points = json::parse(read_file(out))["compute"]["gemm_points"];
  ASSERT_EQ(points.size(), 1u) << points.dump();
  EXPECT_NEAR(points[0]["efficiency"].get<double>(), 270.0 / 312.0, 1e-4);
  const fs::path frac = scratch_dir() / "frac_gemm.csv";
  std::ofstream(frac) << "gpu,dtype,m,n,k,tflops\nA100,bf16,1024.5,4096,4096,270\n";
  const auto bad = shardsim({"fit", "--gemm", frac.string(), "--base", "a100-sxm-80gb-datasheet",
                             "-o", (scratch_dir() / "never_frac.json").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, frac.string() + ":2: m, n, k, batch must be whole numbers"))
      << bad.err;
}

// Found by review (2026-11-27): an empty log was an error at line 0; a malformed --gemm-alias with
// no other input said "nothing to fit"; a dtype aliased twice said it "has measured points of
// its own".
TEST(cli_fit, EmptyLogsAndAliasesAreNamedForWhatTheyAre) {
  const fs::path empty = scratch_dir() / "empty_all_reduce_8.log";
  std::ofstream(empty) << "";
  const std::string out = (scratch_dir() / "never_empty.json").string();
  auto r = shardsim({"fit", "--nccl-tests", empty.string(), "--base", "h100-sxm", "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, empty.string() + ":1: the file is empty")) << r.err;
  r = shardsim({"fit", "--gemm-alias", "bf16"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has_error_line(r.err, "--gemm-alias", "expected DST=SRC")) << r.err;
  r = shardsim({"fit", "--gemm-alias", "bf16=fp16", "--gemm-alias", "bf16=fp32", "--nccl-tests",
                empty.string(), "--base", "h100-sxm", "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has_error_line(r.err, "--gemm-alias", "bf16 is given a source twice")) << r.err;
}

// A short row is an error whichever device it would name: a bare "garbage" line in a GEMM or
// attention table was skipped as another device's row (found by review, 2026-11-28).
TEST(cli_fit, AShortRowIsAnErrorWhateverTheDevice) {
  const fs::path gemm = scratch_dir() / "gemm_garbage.csv";
  std::ofstream(gemm) << "gpu,dtype,m,n,k,batch,tflops\n"
                         "H100,bf16,4096,4096,4096,1,700\n"
                         "garbage\n";
  const fs::path out = scratch_dir() / "never_garbage.json";
  auto r = shardsim({"fit", "--gemm", gemm.string(), "--device", "H100", "--base",
                     "h100-sxm-datasheet", "-o", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "--gemm",
                             "gemm_garbage.csv:3: expected at least 7 fields, "
                             "got 1"))
      << r.err;
  const fs::path att = attention_table("attention_garbage.csv",
                                       "H100,flash-attention-2,bf16,true,128,4096,4,16,300\n"
                                       "garbage\n");
  r = shardsim({"fit", "--attention", att.string(), "--device", "H100", "--base",
                "h100-sxm-datasheet", "-o", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "--attention",
                             "attention_garbage.csv:3: expected at least 9 "
                             "fields, got 1"))
      << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(cli_fit, NothingToFitIsUsageError) {
  const auto r = shardsim({"fit", "--base", "h100-sxm", "-o", (scratch_dir() / "n.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "nothing to fit")) << r.err;
}

TEST(cli_fit, MeasurementsOutsideTheProfileRangesExitTwo) {
  // 0.00001 TFLOP/s on the A100's 312 TFLOP/s fp16 peak is an efficiency of 3.2e-8, below the
  // profile reader's accepted range for /compute/gemm_points/0/efficiency.
  const fs::path csv = scratch_dir() / "slow_gemm.csv";
  std::ofstream(csv) << "gpu,dtype,m,n,k,batch,tflops\nA100,fp16,1024,1024,1024,1,0.00001\n";
  const fs::path out = scratch_dir() / "never_gemm.json";
  const auto r = shardsim(
      {"fit", "--gemm", csv.string(), "--base", "a100-sxm-80gb-datasheet", "-o", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, csv.string())) << r.err;
  EXPECT_TRUE(contains(r.err, "/compute/gemm_points/0/efficiency")) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // Times of 1e300 us (finite, so the log parses) make every weight 1/t^2 underflow to 0: the
  // fit is 0/0. That is bad input (exit 2) and nothing prints a NaN.
  const fs::path log = scratch_dir() / "huge_all_reduce_8.log";
  std::ofstream(log) << " 1024 256 float sum -1 1e300 0.1 0.1 0 1e300 0.1 0.1 0\n"
                        " 2048 512 float sum -1 1e300 0.1 0.1 0 1e300 0.1 0.1 0\n"
                        " 4096 1024 float sum -1 1e300 0.1 0.1 0 1e300 0.1 0.1 0\n";
  const auto h =
      shardsim({"fit", "--nccl-tests", log.string(), "--base", "h100-sxm", "-o", out.string()});
  EXPECT_EQ(h.exit_code, 2) << h.err;
  EXPECT_TRUE(contains(h.err, log.string())) << h.err;
  EXPECT_FALSE(has_nan_or_inf(h.out)) << h.out;
  EXPECT_FALSE(has_nan_or_inf(h.err)) << h.err;
  EXPECT_FALSE(fs::exists(out));
}

// Found by review (2026-11-27):
// - from a datasheet base the H100 10-node log (sizes from 33 MB) drove the topology fit's
//   small-message efficiency to 1e-8 and the fit exited 2; every fitted member now stays in the
//   reader's ranges and the latencies need small messages
//   (topology_fit.LatenciesNeedSmallMessages);
// - a directory given as a log read as an empty log ("dir:0: no nccl-tests data rows found");
// - -o naming one of the inputs replaced it.
TEST(cli_fit, DatasheetBaseDirectoryInputAndOutputOverAnInput) {
  const fs::path out = scratch_dir() / "h100_datasheet_fit.json";
  fs::remove(out);
  auto r = shardsim({"fit", "--base", "h100-sxm-datasheet", "--nccl-tests",
                     (kNccl / "h100-sxm-10node_all_reduce_80.log").string(), "-o", out.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out));
  const fs::path dir = scratch_dir() / "a_dir_all_reduce_8.log";
  fs::create_directories(dir);
  r = shardsim({"fit", "--base", "h100-sxm", "--nccl-tests", dir.string(), "-o",
                (scratch_dir() / "never_dir.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "is a directory")) << r.err;
  const fs::path log = scratch_dir() / "copy_all_reduce_8.log";
  fs::copy_file(kNccl / "h100-sxm-nvlink-1node_all_reduce_8.log", log,
                fs::copy_options::overwrite_existing);
  const std::string before = read_file(log);
  r = shardsim({"fit", "--base", "h100-sxm", "--nccl-tests", log.string(), "-o", log.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "writing it would destroy that input")) << r.err;
  EXPECT_EQ(read_file(log), before);
  // fit -o - beside its report on standard output: two documents on one stream.
  r = shardsim({"fit", "--base", "h100-sxm", "--nccl-tests", log.string(), "-o", "-"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "standard output is already the output of the report")) << r.err;
}

// Found by review (2026-11-27): --gpus-per-node 3 with an 8-rank log that prints no hosts stored
// the impossible placement (8 ranks, 3 per node); --gpus-per-node 0 and --ranks 0 were taken as
// "not given", --ranks 1 as "cannot tell". Each is exit 2 naming the option.
TEST(cli_fit, NodeSizesThatCannotBeAreRefused) {
  const fs::path log = scratch_dir() / "nohosts_all_reduce_8.log";
  std::ofstream(log) << "#  size count type redop root time algbw busbw #wrong time algbw busbw "
                        "#wrong\n"
                        "   1024   256 float sum -1 12.0 0.09 0.15 0 12.0 0.09 0.15 0\n"
                        "   2048   512 float sum -1 13.0 0.16 0.28 0 13.0 0.16 0.28 0\n"
                        "   4096  1024 float sum -1 14.0 0.29 0.51 0 14.0 0.29 0.51 0\n";
  const std::string out = (scratch_dir() / "never_nodes.json").string();
  auto fit = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"fit",        "--base", "h100-sxm", "--nccl-tests",
                                     log.string(), "-o",     out};
    args.insert(args.end(), extra.begin(), extra.end());
    return shardsim(args);
  };
  Result r = fit({"--gpus-per-node", "3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "8 ranks do not fill nodes of 3")) << r.err;
  EXPECT_EQ(fit({"--gpus-per-node", "0"}).exit_code, 2);
  EXPECT_EQ(fit({"--ranks", "0"}).exit_code, 2);
  r = fit({"--ranks", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has_error_line(r.err, "--ranks", "must be >= 2")) << r.err;
  EXPECT_EQ(fit({"--gpus-per-node", "4"}).exit_code, 0);  // 8 ranks on two nodes of 4
  // A log that prints its hosts may not put more ranks on one than --gpus-per-node (found by
  // review, 2026-11-28: the flag was ignored there, exit 0); fewer is a job using part of each
  // node. The shipped 8-rank NVLink log lists 8 ranks on one host.
  const std::string hosts =
      std::string(SHARDSIM_SOURCE_DIR) +
      "/scenarios/measurements/nccl-tests/h100-sxm-nvlink-1node_all_gather_8.log";
  r = shardsim(
      {"fit", "--base", "h100-sxm", "--nccl-tests", hosts, "--gpus-per-node", "3", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "8 on one, more than --gpus-per-node 3")) << r.err;
  for (const char* n : {"8", "16"})
    EXPECT_EQ(shardsim({"fit", "--base", "h100-sxm", "--nccl-tests", hosts, "--gpus-per-node", n,
                        "-o", out})
                  .exit_code,
              0)
        << n;
}

// Found by the nccl_log fuzz target: a log whose fitted segment lies outside the network
// reader's ranges (here max_bytes 2.1e15 > 1e15) was exit 3 ("internal failure") with
// --network-output, exit 2 only with -o. The fuzzer's minimised finding
// (tests/fuzz/regressions/nccl_log/segment-max-bytes-out-of-range.log) now stops at its first
// row, whose time disagrees with its algbw column; this log keeps its 2.1e15-byte row with
// columns that agree (2107374081731824 B / 21073740817.32 us = 100.00 GB/s, busbw x 2 x 15/16 =
// 187.50), named so that fit reads its op and ranks from the file name.
TEST(cli_fit, NetworkOutsideTheReaderRangesExitsTwoWithNetworkOutput) {
  const fs::path log = scratch_dir() / "huge_all_reduce_16.log";
  std::ofstream(log) << "#  size count type redop root time algbw busbw #wrong time algbw busbw "
                        "#wrong\n"
                        "  1024 256 float sum -1 10.00 0.10 0.19 0 10.00 0.10 0.19 0\n"
                        "  2107374081731824 526843520432956 float sum -1 21073740817.32 100.00 "
                        "187.50 0 21073740817.32 100.00 187.50 0\n";
  const fs::path out = scratch_dir() / "never_net.json";
  fs::remove(out);
  const auto r = shardsim({"fit", "--nccl-tests", log.string(), "--network-base", "dgx-a100",
                           "--network-output", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "the measurements give a network outside the accepted ranges"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "max_bytes")) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// NVSwitch all-reduce logs onto a PCIe base, whose declared NVLink line rate is 15.75 GB/s:
// exit 2 naming the line rate, no file. The first row faster than that line rate is refused
// before the fit: line 22, 524,288 B in 20.96 us, at least 524,288 B per rank at 25.0 GB/s.
// (Until a later review the same day the fit ran and its all-reduce gain of 32.5 was refused;
// that guard is topology_fit.AGainAboveTheLimitIsNamed.)
TEST(cli_fit, AnAllReduceFarAboveTheBasesLineRateIsRefused) {
  const fs::path out = scratch_dir() / "never_gain.json";
  fs::remove(out);
  const auto r = shardsim(
      {"fit", "--nccl-tests", (kNccl / "aws-p5-h100-nvlink-1node_all_reduce_8.log").string(),
       "--network-base", "pcie-gen3-nop2p-datasheet", "--network-output", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has_error_line(r.err, "--nccl-tests", "all_reduce_8.log:22: ")) << r.err;
  EXPECT_NE(r.err.find("line rate of 15.75 GB/s per GPU (intra_node_line_GBps 15.75)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(cli_fit, TwoLogsOfTheSameCollectiveAreRefused) {
  // The same log twice: both are all_reduce on 8 ranks, 4 per node (8 "# Rank" lines on 2
  // hosts); merging would keep only the second's segments.
  const std::string log = (kNccl / "polaris-a100-slingshot-2node_all_reduce_8.log").string();
  const fs::path copy = scratch_dir() / "copy_all_reduce_8.log";
  fs::copy_file(log, copy, fs::copy_options::overwrite_existing);
  const fs::path out = scratch_dir() / "never_dup.json";
  const auto r = shardsim({"fit", "--nccl-tests", log, "--nccl-tests", copy.string(), "--base",
                           "a100-sxm-80gb", "-o", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, log)) << r.err;
  EXPECT_TRUE(contains(r.err, copy.string())) << r.err;
  EXPECT_TRUE(contains(r.err, "all_reduce on 8 ranks, 4 per node")) << r.err;
  EXPECT_TRUE(contains(r.err, "give one log or table per (op, ranks, ranks per node)")) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(cli_fit, BaseNamingAnUnknownNetworkPresetExitsTwo) {
  // h100-sxm with node.network changed to a name no preset has: base_network() used to
  // dereference the missing preset.
  json base =
      json::parse(read_file(fs::path(SHARDSIM_SOURCE_DIR) / "scenarios/gpus/h100-sxm.json"));
  base["node"]["network"] = "no-such-net";
  const fs::path path = scratch_dir() / "badnet.json";
  std::ofstream(path) << base.dump();
  const auto r =
      shardsim({"fit", "--nccl-tests", (kNccl / "h100-sxm-nvlink-1node_all_reduce_8.log").string(),
                "--base", path.string(), "-o", (scratch_dir() / "never_net.json").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--base")) << r.err;
  EXPECT_TRUE(contains(r.err, "no-such-net")) << r.err;
}

// A cpu-backend samples document with the items profile_from_samples reads: two sgemms (best
// 2e11 FLOP/s -> every peak), a memory-bound rate, a launch and a copy.
json cpu_samples() {
  const auto item = [](const char* kind, json params, json work, json derived) {
    return test_samples::samples_item(kind, kind, params, work, derived);
  };
  json items = json::array();
  items.push_back(item("gemm", {{"m", 1024}, {"n", 1024}, {"k", 1024}, {"dtype", "fp32"}},
                       {{"flops", 2.0 * 1024 * 1024 * 1024}}, {{"flops_per_second", 1e11}}));
  items.push_back(item("gemm", {{"m", 2048}, {"n", 2048}, {"k", 2048}, {"dtype", "fp32"}},
                       {{"flops", 2.0 * 2048 * 2048 * 2048}}, {{"flops_per_second", 2e11}}));
  items.push_back(item("memory_bound", {{"op", "dropout_residual"}, {"rows", 1024}, {"cols", 1024}},
                       {{"bytes", 1.2e7}}, {{"bytes_per_second", 2e10}}));
  items.push_back(
      item("launch", {{"launches", 100}}, {{"launches", 100}}, {{"seconds_per_launch", 2e-6}}));
  items.push_back(item("copy", {{"direction", "host_to_host"}, {"bytes", 1e8}}, {{"bytes", 1e8}},
                       {{"bytes_per_second", 1e10}}));
  return test_samples::samples_document(items);
}

// cpu_samples() on a 2-rank, one-node job, plus a 2-rank all-reduce at 1 KB .. 1 MB taking
// seconds(bytes) each (items[5] to items[8]).
json cpu_samples_with_all_reduce(const std::function<double(double)>& seconds) {
  json d = cpu_samples();
  d["context"]["mpi"]["world_size"] = 2;
  d["context"]["mpi"]["ranks_per_node"] = 2;
  for (const double bytes : {1e3, 1e4, 1e5, 1e6})
    d["items"].push_back(test_samples::samples_item(
        "collective", fmt::format("all_reduce/{}", bytes),
        {{"op", "all_reduce"}, {"bytes", bytes}, {"ranks", 2}, {"ranks_per_node", 2}},
        {{"bytes", bytes}}, json::object(), seconds(bytes)));
  return d;
}

TEST(cli_fit, SamplesWithoutBaseMakeAProfile) {
  const fs::path samples = scratch_dir() / "cpu.samples.json";
  std::ofstream(samples) << cpu_samples().dump(2);
  const fs::path out = scratch_dir() / "fit_cpu.json";
  const auto r = shardsim({"fit", "--samples", samples.string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json profile = json::parse(read_file(out));
  // memory_bytes: this machine's RAM / 1 rank per node (the document predates
  // host_memory_bytes), so > 0 (it was 0 before: exit 3).
  EXPECT_GT(profile["memory_bytes"].get<double>(), 0);
  EXPECT_EQ(profile["name"], "cpu-testhost");
  // cpu_samples() measured no collective and no base names a network: the profile prices none,
  // and fit says so (found by review, 2026-11-27: simulate was the first to tell).
  EXPECT_FALSE(profile.contains("network"));
  EXPECT_TRUE(contains(r.err, "the profile has no network")) << r.err;
  // The written profile reads back: `fit --base` loads it through the profile reader.
  const auto again = shardsim({"fit", "--samples", samples.string(), "--base", out.string(), "-o",
                               (scratch_dir() / "fit_cpu2.json").string()});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  // --network-output writes the network of logs and tables: with samples alone it says where
  // their collectives go (it named --base first, then a lack of collectives; review 2026-11-28).
  const auto network = shardsim({"fit", "--samples", samples.string(), "--network-output",
                                 (scratch_dir() / "never_net.json").string()});
  EXPECT_EQ(network.exit_code, 2);
  EXPECT_TRUE(contains(network.err,
                       "--network-output: needs --nccl-tests or --collective-table: "
                       "the collectives of --samples are fitted into -o's profile"))
      << network.err;
}

// Without --base every profile value comes from the samples: ones they lack are named with what
// would give them (found by review, 2026-11-29: "outside the accepted ranges:
// /peak_flops_per_second/fp32 ... got 0.0"). cpu_samples() without its GEMM items lacks the peaks.
TEST(cli_fit, SamplesWithoutBaseNameWhatTheyLack) {
  json doc = cpu_samples();
  json kept = json::array();
  for (const json& item : doc["items"])
    if (item["kind"] != "gemm") kept.push_back(item);
  doc["items"] = kept;
  const fs::path samples = scratch_dir() / "no_gemm.samples.json";
  std::ofstream(samples) << doc.dump();
  const auto r = shardsim({"fit", "--samples", samples.string(), "-o",
                           (scratch_dir() / "never_no_gemm.json").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err,
                       "--samples: without --base the profile takes every value from the "
                       "samples, which lack GEMM items (the peaks); give --base PROFILE"))
      << r.err;
  EXPECT_FALSE(contains(r.err, "outside the accepted ranges")) << r.err;
  // A GPU's peaks come each from its own dtype's GEMMs, and a profile needs fp32 and fp16: a CUDA
  // document of bf16 GEMMs alone (with everything else a profile needs) lacks those two (found by
  // the README check, 2026-11-29: "lack GEMM items" of a document that had some).
  using test_samples::samples_item;
  json gpu = test_samples::samples_document(
      json::array(
          {samples_item("gemm", "bf16 gemm",
                        {{"m", 4096}, {"n", 4096}, {"k", 4096}, {"dtype", "bf16"}},
                        {{"flops", 2.0 * 4096 * 4096 * 4096}}, {{"flops_per_second", 7e14}}),
           samples_item("memory_bound", "dropout_residual",
                        {{"op", "dropout_residual"}, {"rows", 1024}, {"cols", 1024}},
                        {{"bytes", 1.2e7}}, {{"bytes_per_second", 2e12}}),
           samples_item("copy", "copy/host_to_device",
                        {{"direction", "host_to_device"}, {"bytes", 1e9}}, {{"bytes", 1e9}},
                        {{"bytes_per_second", 5e10}})}),
      "cuda");
  const fs::path bf16 = scratch_dir() / "bf16_only.samples.json";
  std::ofstream(bf16) << gpu.dump();
  const auto b = shardsim(
      {"fit", "--samples", bf16.string(), "-o", (scratch_dir() / "never_bf16.json").string()});
  EXPECT_EQ(b.exit_code, 2) << b.err;
  EXPECT_TRUE(contains(b.err,
                       "which lack fp32 GEMM items (the fp32 peak), fp16 GEMM items (the "
                       "fp16 peak); give --base"))
      << b.err;
  // The host link may come from an --hbm table's host copy instead of copy items (found by review,
  // 2026-11-29: refused as lacking copy items, while copy items beside the row are two sources):
  // the document without its copy item, with fp32 and fp16 GEMMs, and a table whose
  // nvbandwidth host_to_device row runs at 52 GB/s: pcie = 52e9 / 0.8 = 6.5e10 B/s.
  json no_copy = gpu;
  no_copy["items"].erase(2);
  for (const char* dtype : {"fp32", "fp16"})
    no_copy["items"].push_back(
        samples_item("gemm", std::string(dtype) + " gemm",
                     {{"m", 4096}, {"n", 4096}, {"k", 4096}, {"dtype", dtype}},
                     {{"flops", 2.0 * 4096 * 4096 * 4096}}, {{"flops_per_second", 3e14}}));
  const fs::path host = scratch_dir() / "no_copy.samples.json";
  std::ofstream(host) << no_copy.dump();
  const fs::path table = scratch_dir() / "host_copy.csv";
  std::ofstream(table) << "gpu,test,value,unit\nTest GPU,nvbandwidth_host_to_device,52,GB/s\n";
  const fs::path out = scratch_dir() / "host_from_table.json";
  const auto h =
      shardsim({"fit", "--samples", host.string(), "--hbm", table.string(), "-o", out.string()});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  EXPECT_DOUBLE_EQ(json::parse(read_file(out))["host"]["pcie_bytes_per_second"].get<double>(),
                   6.5e10);
  // A table without a host copy leaves the link to nothing: exit 2 naming --hbm.
  std::ofstream(table) << "gpu,test,value,unit\nTest GPU,babelstream_copy,1.5,TB/s\n";
  const auto none = shardsim({"fit", "--samples", host.string(), "--hbm", table.string(), "-o",
                              (scratch_dir() / "never_host.json").string()});
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_TRUE(contains(none.err, "--hbm: without --base the host link comes from")) << none.err;
}

// --network-name and --network-base apply to the collectives of --samples as to logs (found by
// review, 2026-11-29: with samples alone both were ignored, exit 0). A CUDA document on 2 ranks of
// one node with a 2-rank all-reduce at 1 KB .. 1 MB, t = 20 us + S / 1 GB/s, onto
// h100-sxm-datasheet: the fitted network is named as asked, and started from
// dgx-a100-datasheet it keeps that preset's declared NVLink line rate, 300 GB/s
// (scenarios/clusters/dgx-a100-datasheet.json intra_node_line_GBps), not the base's dgx-h100's
// 450, which these 1 GB/s rows stay under. A CPU profile's network starts from no GPU cluster's:
// exit 2 naming --network-base (found by the same day's diff review: dgx-h100's segments were
// kept beside the CPU's own).
TEST(cli_fit, SamplesTakeTheNetworkNameAndBase) {
  json items = json::array();
  for (const double bytes : {1e3, 1e4, 1e5, 1e6})
    items.push_back(test_samples::samples_item(
        "collective", fmt::format("all_reduce/{}", bytes),
        {{"op", "all_reduce"}, {"bytes", bytes}, {"ranks", 2}, {"ranks_per_node", 2}},
        {{"bytes", bytes}}, json::object(), 20e-6 + bytes / 1e9));
  const fs::path samples = scratch_dir() / "net.samples.json";
  std::ofstream(samples) << test_samples::samples_document(items, "cuda", 2).dump();
  const fs::path named = scratch_dir() / "net_named.json", based = scratch_dir() / "net_based.json";
  const auto a = shardsim({"fit", "--samples", samples.string(), "--base", "h100-sxm-datasheet",
                           "--network-name", "my-fabric", "-o", named.string()});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(json::parse(read_file(named))["network"]["name"], "my-fabric");
  const auto b = shardsim({"fit", "--samples", samples.string(), "--base", "h100-sxm-datasheet",
                           "--network-base", "dgx-a100-datasheet", "-o", based.string()});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(json::parse(read_file(based))["network"]["intra_node_line_GBps"], 300.0);
  // These samples measured no GEMM and no memory-bound kernel: a --gemm table beside them is
  // taken against the base's own peak, and the provenance says so without "with --samples"
  // (it named the samples though they changed nothing there). 600 TFLOP/s / the datasheet's
  // 989.4 TFLOP/s dense BF16 (scenarios/gpus/h100-sxm-datasheet.json) = 0.6064.
  const fs::path gemm = scratch_dir() / "beside_collectives.csv";
  std::ofstream(gemm) << "gpu,dtype,m,n,k,tflops\nH100,bf16,2048,2048,2048,600\n";
  const fs::path tables = scratch_dir() / "net_gemm.json";
  const auto t = shardsim({"fit", "--samples", samples.string(), "--base", "h100-sxm-datasheet",
                           "--gemm", gemm.string(), "-o", tables.string()});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const json tp = json::parse(read_file(tables));
  EXPECT_TRUE(contains(tp["provenance"].dump(), "dense peak of h100-sxm-datasheet)"))
      << tp["provenance"].dump();
  EXPECT_FALSE(contains(tp["provenance"].dump(), "with --samples")) << tp["provenance"].dump();
  for (const json& point : tp["compute"]["gemm_points"]) {
    if (point["m"] == 2048 && point["dtype"] == "bf16") {
      EXPECT_NEAR(point["efficiency"].get<double>(), 600e12 / 989.4e12, 1e-4);
    }
  }
  const fs::path cpu = scratch_dir() / "net_cpu.samples.json";
  std::ofstream(cpu) << cpu_samples_with_all_reduce([](double bytes) {
                          return 20e-6 + bytes / 1e9;
                        }).dump();
  const fs::path never = scratch_dir() / "never_cpu_net.json";
  const auto c = shardsim(
      {"fit", "--samples", cpu.string(), "--network-base", "dgx-h100", "-o", never.string()});
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_TRUE(contains(c.err,
                       "--network-base: 'dgx-h100' cannot start the network of "
                       "'cpu-testhost', a CPU profile"))
      << c.err;
  EXPECT_FALSE(fs::exists(never));
  // Samples without collectives fit no network for the flags to apply to (found by the same
  // review: a launch-only file took --network-name with exit 0).
  const fs::path launch = scratch_dir() / "launch_only.samples.json";
  std::ofstream(launch) << test_samples::samples_document(
                               json::array({test_samples::samples_item(
                                   "launch", "launch", {{"launches", 100}}, {{"launches", 100}},
                                   {{"seconds_per_launch", 2e-6}})}),
                               "cuda")
                               .dump();
  const auto d = shardsim({"fit", "--samples", launch.string(), "--base", "h100-sxm-datasheet",
                           "--network-name", "zzz", "-o", never.string()});
  EXPECT_EQ(d.exit_code, 2) << d.err;
  EXPECT_TRUE(contains(d.err,
                       "--network-name: applies to the network fitted from collectives, "
                       "and the --samples measured none"))
      << d.err;
  EXPECT_FALSE(fs::exists(never));
}

// GPU measurements are not fitted onto a CPU profile (found by review, 2026-11-29: an 8-H100
// all-reduce log took a CPU profile's intra-node rate from 4.5 to 493 GB/s, exit 0), whether the
// CPU profile comes from --samples or is the --base; nothing is written.
TEST(cli_fit, GpuMeasurementsAreNotFittedOntoACpuProfile) {
  const fs::path samples = scratch_dir() / "cpu_for_gpu.samples.json";
  std::ofstream(samples) << cpu_samples().dump();
  const fs::path cpu = scratch_dir() / "cpu_profile.json", never = scratch_dir() / "never_mix.json";
  ASSERT_EQ(shardsim({"fit", "--samples", samples.string(), "-o", cpu.string()}).exit_code, 0);
  const std::string log = (kNccl / "h100-sxm-nvlink-1node_all_reduce_8.log").string();
  const std::string gemm = (kGemm / "azure_cublaslt_gemm_a100_h100_h200.csv").string();
  for (const auto& [args, flag] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--samples", samples.string(), "--nccl-tests", log}, "--nccl-tests"},
           {{"--base", cpu.string(), "--gemm", gemm, "--device", "H100"}, "--gemm"}}) {
    std::vector<std::string> cmd = {"fit"};
    cmd.insert(cmd.end(), args.begin(), args.end());
    cmd.insert(cmd.end(), {"-o", never.string()});
    const auto r = shardsim(cmd);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "error: " + flag + ": ")) << r.err;
    EXPECT_TRUE(contains(r.err,
                         "GPU measurements cannot be fitted onto 'cpu-testhost', a CPU "
                         "profile"))
        << r.err;
    EXPECT_FALSE(fs::exists(never));
  }
}

// A row the fit cannot represent is exit 2 naming it (found by review, 2026-11-29): the fit weights
// rows by 1 / t^2, so a largest size at 1e20 s (no larger message to call it stalled) got no
// weight and the fit, 20 us + S / 1 GB/s from the other rows, was written with exit 0. 1e6 B is
// priced at 20 + 1000 = 1020 us by the other rows; 1e20 s is far beyond 10x that. A time near
// the double limit on a smaller row is left out as stalled and printed in seconds, not "inf us".
TEST(cli_fit, ARowTheFitCannotRepresentIsRefused) {
  const auto doc = [](double largest_s, double smallest_s) {
    return cpu_samples_with_all_reduce([&](double bytes) {
      return bytes == 1e6 ? largest_s : bytes == 1e3 ? smallest_s : 20e-6 + bytes / 1e9;
    });
  };
  const fs::path stalled = scratch_dir() / "stalled_last.samples.json";
  std::ofstream(stalled) << doc(1e20, 20e-6 + 1e3 / 1e9).dump();
  const fs::path never = scratch_dir() / "never_stalled.json";
  const auto r = shardsim({"fit", "--samples", stalled.string(), "-o", never.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // items: 5 from cpu_samples(), then the 4 all-reduces; the 1e6 B one is items[8].
  EXPECT_TRUE(contains(r.err,
                       "stalled_last.samples.json items[8]: all_reduce of 1e+06 B on 2 "
                       "ranks took 1e+20 s, but the fit of its group gives"))
      << r.err;
  EXPECT_FALSE(fs::exists(never));
  const fs::path huge = scratch_dir() / "huge_first.samples.json";
  std::ofstream(huge) << doc(20e-6 + 1e6 / 1e9, 1e305).dump();
  const auto h = shardsim(
      {"fit", "--samples", huge.string(), "-o", (scratch_dir() / "huge_first.json").string()});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  EXPECT_TRUE(contains(h.out, "items[5] (all_reduce/2x2) left out: 1e+305 s, over 3x the 30.0 us"))
      << h.out;
  EXPECT_FALSE(contains(h.out, "inf")) << h.out;
  // A log alike: its largest row at 1e12 us beside 80-100 us rows, named by its line (write_log
  // puts a header line first).
  const fs::path log = write_log("stalled_last_all_reduce_16.log",
                                 "   1024   256 float sum -1 80.0 0.01 0.02 0 80.0 0.01 0.02 0\n"
                                 "   2048   512 float sum -1 90.0 0.02 0.04 0 90.0 0.02 0.04 0\n"
                                 "   4096  1024 float sum -1 100.0 0.04 0.08 0 100.0 0.04 0.08 0\n"
                                 "   8192  2048 float sum -1 1e12 0.00 0.00 0 1e12 0.00 0.00 0\n");
  const auto l = shardsim({"fit", "--nccl-tests", log.string(), "--base", "h100-sxm", "-o",
                           (scratch_dir() / "never_log.json").string()});
  EXPECT_EQ(l.exit_code, 2) << l.err;
  EXPECT_TRUE(contains(l.err,
                       "stalled_last_all_reduce_16.log:5: all_reduce of 8192 B on 16 ranks "
                       "took 1e+06 s"))
      << l.err;
  // A stall that takes its own segment, a 2-row regime at the sweep's end: its line's intercept
  // is beyond the +-10 s a profile holds, and the refusal names its rows (the reader named a
  // segment index of the written network). The shipped 8-H100 all-reduce log with its last row,
  // 16 GiB (line 31), at 1000x its 62.34 ms, algbw and busbw to match.
  std::string text = read_file(kNccl / "h100-sxm-nvlink-1node_all_reduce_8.log");
  const std::string row =
      " 17179869184    2147483648    double     sum      -1  62340.7  275.58  482.27       0  "
      "62359.0  275.50  482.12       0";
  ASSERT_NE(text.find(row), std::string::npos);
  text.replace(text.find(row), row.size(),
               " 17179869184    2147483648    double     sum      -1  62340700.0  0.2756  0.4823  "
               "     0  62359000.0  0.2755  0.4821       0");
  const fs::path big = scratch_dir() / "stalled_pair_all_reduce_8.log";
  std::ofstream(big) << text;
  const auto p = shardsim({"fit", "--nccl-tests", big.string(), "--base", "h100-sxm-datasheet",
                           "-o", (scratch_dir() / "never_pair.json").string()});
  EXPECT_EQ(p.exit_code, 2) << p.err;
  EXPECT_TRUE(contains(p.err,
                       "stalled_pair_all_reduce_8.log: all_reduce on 8 ranks, line 30 to "
                       "line 31: these rows fit a line with an intercept of"))
      << p.err;
}

// The report says what each samples file gave (it said nothing about them before, 2026-11-27),
// and CPU samples are not fitted onto a GPU profile, nor a GPU profile calibrated by the CPU.
// A samples document without items (what a sweep stopped before its first item leaves) is
// nothing to fit, as no input at all is (found by review, 2026-11-28: exit 0, the base written
// back as `fitted: true`, "used: nothing").
TEST(cli_fit, SamplesWithNoItemsAreNothingToFit) {
  json doc = cpu_samples();
  doc["items"] = json::array();
  const fs::path samples = scratch_dir() / "empty.samples.json", out = scratch_dir() / "e.json";
  std::ofstream(samples) << doc.dump(2);
  fs::remove(out);
  const auto r = shardsim({"fit", "--samples", samples.string(), "-o", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "no items: nothing to fit")) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // A document whose every value a later one measures again gave them first: not nothing (the
  // later wins; found by review of the check above, the same day).
  const fs::path first = scratch_dir() / "first.samples.json",
                 again = scratch_dir() / "again.samples.json";
  std::ofstream(first) << cpu_samples().dump(2);
  std::ofstream(again) << cpu_samples().dump(2);
  const auto twice = shardsim(
      {"fit", "--samples", first.string(), "--samples", again.string(), "-o", out.string()});
  EXPECT_EQ(twice.exit_code, 0) << twice.err;
}

// The line-rate rule on the samples path takes the base's node.network when the base embeds no
// network, as every GPU preset does (found by review, 2026-11-28: the rule saw no line rate and
// a 2-rank all-reduce at 2.3 TB/s was fitted). Item 1: 1 MiB in 0.4597 us on 2 ranks moves at
// least 1 MiB per rank, 2,281 GB/s, over h100-sxm-datasheet's dgx-h100-datasheet NVLink line
// of 450 GB/s. Item 2 (4 MiB in 100 us, 42 GB/s) is possible.
TEST(cli_fit, SamplesFasterThanTheBasesLineRateAreRefused) {
  using test_samples::samples_item;
  json items = json::array();
  for (const auto& [bytes, seconds] : {std::pair{1048576.0, 0.4597e-6}, {4194304.0, 100e-6}})
    items.push_back(samples_item(
        "collective", fmt::format("collective/nccl/all_reduce/g2/{}", bytes),
        {{"op", "all_reduce"},
         {"ranks", 2},
         {"ranks_per_node", 2},
         {"nodes", 1},
         {"groups", 1},
         {"bytes", bytes},
         {"library", "nccl"},
         {"dtype", "fp32"},
         {"count", bytes / 4}},
        {{"bytes", bytes}, {"busbw_factor", 1.0}},
        {{"algbw_bytes_per_second", bytes / seconds}, {"busbw_bytes_per_second", bytes / seconds}},
        seconds));
  const fs::path samples = scratch_dir() / "too_fast.samples.json";
  std::ofstream(samples) << test_samples::samples_document(items, "cuda", 2).dump(2);
  const fs::path out = scratch_dir() / "never_too_fast.json";
  const auto r = shardsim(
      {"fit", "--samples", samples.string(), "--base", "h100-sxm-datasheet", "-o", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "too_fast.samples.json items[0]: all_reduce of 1.04858e+06 B"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "(intra_node_line_GBps 450)")) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(cli_fit, SamplesAreReportedAndNotMixedWithAGpuBase) {
  const fs::path samples = scratch_dir() / "cpu_report.samples.json";
  std::ofstream(samples) << cpu_samples().dump(2);
  const auto r = shardsim({"fit", "--samples", samples.string(), "--json", "-o",
                           (scratch_dir() / "fit_cpu_report.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(r.out);
  ASSERT_EQ(report["inputs"].size(), 1u);
  const json& in = report["inputs"][0];
  EXPECT_EQ(in["input"], "samples");
  EXPECT_EQ(in["rows"], 5);  // cpu_samples(): two gemm items, memory_bound, launch, copy
  EXPECT_EQ(in["used"], json({"gemm fp32 (2 items)", "memory_bound (1 items)", "launch (1 items)",
                              "copy (1 items)"}));
  const auto onto_gpu = shardsim({"fit", "--samples", samples.string(), "--base", "h100-sxm", "-o",
                                  (scratch_dir() / "never_cpu_gpu.json").string()});
  EXPECT_EQ(onto_gpu.exit_code, 2) << onto_gpu.err;
  EXPECT_TRUE(contains(onto_gpu.err, "--samples")) << onto_gpu.err;
  EXPECT_TRUE(contains(onto_gpu.err, "describes a GPU")) << onto_gpu.err;
  const fs::path never = scratch_dir() / "never_calibrated.json";
  const auto cal = shardsim(
      {"calibrate", "--backend", "cpu", "--quick", "--base", "h100-sxm", "-o", never.string()});
  EXPECT_EQ(cal.exit_code, 2) << cal.err;
  EXPECT_TRUE(contains(cal.err, "--base")) << cal.err;
  EXPECT_FALSE(fs::exists(never));
  json unverified = cpu_samples();
  unverified["items"][1]["verified"] = false;
  const fs::path bad = scratch_dir() / "unverified.samples.json";
  std::ofstream(bad) << unverified.dump(2);
  const auto wrong =
      shardsim({"fit", "--samples", bad.string(), "-o", (scratch_dir() / "never_u.json").string()});
  EXPECT_EQ(wrong.exit_code, 2) << wrong.err;
  EXPECT_TRUE(contains(wrong.err, "failed verification")) << wrong.err;
}

}  // namespace

namespace {

// A stop request (SIGTERM) after the sweep, while the profile is fitted: through the test hook
// SHARDSIM_TEST_STOP_AFTER_SWEEP, which raises SIGTERM the moment the sweep returns. The process
// used to end there with no word and no profile (found by review, 2026-11-27); now the profile
// is finished, complete, and the request is named. One rank, the quick sweep: about 5 s.
TEST(cli_calibrate, AStopAfterTheSweepFinishesTheProfileAndSaysSo) {
  const fs::path dir = cli_test::scratch_dir() / "stop_after_sweep";
  fs::create_directories(dir);
  const fs::path out = dir / "p.json";
  ::setenv("SHARDSIM_TEST_STOP_AFTER_SWEEP", "1", 1);
  const auto r =
      cli_test::shardsim({"calibrate", "--backend", "cpu", "--quick", "-o", out.string()});
  ::unsetenv("SHARDSIM_TEST_STOP_AFTER_SWEEP");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(cli_test::contains(r.err, "SIGTERM arrived after every item was measured")) << r.err;
  ASSERT_TRUE(fs::exists(out));
  EXPECT_EQ(nlohmann::json::parse(cli_test::read_file(out))["provenance"]["fitted"], true);
  // Nothing else is left beside the two files: no temporary of an interrupted write.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::ranges::sort(names);
  EXPECT_EQ(names, (std::vector<std::string>{"p.json", "p.samples.json"}));
}

// Without a CUDA device (this CI machine) calibrate --backend cuda exits 3 with "no CUDA device"
// and writes no profile; on a GPU machine it must succeed (exit 0).
// An -o path with a control character is exit 2 before measuring: the samples file is named in
// the profile's provenance, whose strings refuse them, and the run failed after the whole sweep
// as an internal failure, exit 3 (found by review, 2026-11-29).
TEST(cli_calibrate, AnOutputPathWithAControlCharacterIsRefusedFirst) {
  const fs::path dir = scratch_dir() / "d\x1b[31m";
  fs::create_directories(dir);
  const auto r =
      shardsim({"calibrate", "--backend", "cpu", "--quick", "-o", (dir / "p.json").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "contains a control character")) << r.err;
  EXPECT_FALSE(fs::exists(dir / "p.samples.json"));
}

TEST(cli_calibrate, CudaWithoutDeviceExitsThree) {
  const fs::path out = cli_test::scratch_dir() / "cuda.json";
  const auto r =
      cli_test::shardsim({"calibrate", "--backend", "cuda", "--quick", "-o", out.string()});
  if (r.exit_code == 0) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(cli_test::contains(r.err, "no CUDA device")) << r.err;
#ifdef SHARDSIM_HAVE_CUDA
  // The backend module beside the binary was found and loaded; only the device is missing.
  EXPECT_FALSE(cli_test::contains(r.err, "cannot load")) << r.err;
#endif
  EXPECT_FALSE(fs::exists(out));
}

// The cuda backend is a module loaded on demand (kernels/cuda/cuda_backend.h); one that cannot be
// loaded is exit 3 too, naming the file and the loader's reason. In a build without CUDA the
// module is never looked for, and the message says the build has no CUDA.
TEST(cli_calibrate, CudaBackendModuleThatCannotLoadExitsThree) {
  const fs::path out = cli_test::scratch_dir() / "no-module.json";
  const fs::path missing = cli_test::scratch_dir() / "no-such-module.so";
  struct EnvGuard {  // unset however the test ends
    explicit EnvGuard(const fs::path& p) { setenv("SHARDSIM_CUDA_BACKEND", p.c_str(), 1); }
    ~EnvGuard() { unsetenv("SHARDSIM_CUDA_BACKEND"); }
  } guard(missing);
  const auto r =
      cli_test::shardsim({"calibrate", "--backend", "cuda", "--quick", "-o", out.string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
#ifdef SHARDSIM_HAVE_CUDA
  EXPECT_TRUE(cli_test::contains(
      r.err, "CUDA backend unavailable: cannot load " + missing.string() + " (" + missing.string()))
      << r.err;
#else
  EXPECT_TRUE(cli_test::contains(r.err, "no CUDA device")) << r.err;
#endif
  EXPECT_FALSE(fs::exists(out));
}

// Under `calibrate --launcher` (here `env`, one rank), a backend that cannot start is named by the
// parent too, from the .partial the rank writes: it said "no rank recorded an error (did the
// launcher start shardsim?)" after the rank's own message (found by README audit, 2026-11-29).
TEST(cli_calibrate, TheLauncherNamesABackendThatCannotStart) {
  const fs::path out = cli_test::scratch_dir() / "launched.json";
  const auto r = cli_test::shardsim(
      {"calibrate", "--backend", "cuda", "--quick", "--launcher", "env", "-o", out.string()});
  if (r.exit_code == 0) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(cli_test::contains(r.err, "error: calibration failed: backend: no CUDA device"))
      << r.err;
  const fs::path partial = cli_test::scratch_dir() / "launched.samples.json.partial";
  EXPECT_TRUE(cli_test::contains(r.err, "no item was measured (" + partial.string())) << r.err;
  EXPECT_TRUE(fs::exists(partial));
  EXPECT_FALSE(cli_test::contains(r.err, "no rank recorded an error")) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
