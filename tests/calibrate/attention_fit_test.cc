// FlashAttention benchmark table -> compute.attention_points (calibrate/attention_fit.h) and the
// lookup the cost model uses (simulator/hardware/measured_efficiency.h), on the copied
// FlashAttention-2 table (scenarios/measurements/attention/, source header in the file).
#include "calibrate/attention_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "simulator/hardware/measured_efficiency.h"

namespace shardsim::calibrate {
namespace {

const std::string kFile =
    std::string(SHARDSIM_MEASUREMENTS_DIR) + "/attention/flash_attention2_fwd_bwd_a100_h100.csv";
constexpr std::string_view kFa2 = "flash-attention-2";
// The A100's dense fp16/bf16 peak, 312 TFLOP/s (NVIDIA A100 datasheet; the a100-sxm-80gb preset).
const PeakFlops kA100{19.5e12, 156e12, 312e12, 312e12, 0};

std::string read(const std::string& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<AttentionMeasurement> rows_of(const std::string& device) {
  auto r = parse_attention_csv(read(kFile), kFile, device);
  if (auto* e = std::get_if<std::string>(&r)) ADD_FAILURE() << *e;
  return std::get<std::vector<AttentionMeasurement>>(r);
}

std::vector<AttentionPoint> a100_points() {
  auto p = attention_points(rows_of("NVIDIA A100 SXM"), kA100, kFile);
  if (auto* e = std::get_if<std::string>(&p)) ADD_FAILURE() << *e;
  return std::get<std::vector<AttentionPoint>>(p);
}

std::string error_of(const std::string& text, const std::string& device = "") {
  auto r = parse_attention_csv(text, "t.csv", device);
  return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "(no error)";
}

TEST(attention_fit, ReadsEachKernelsTwentyFourBars) {
  // 2 masks x 2 head dimensions x 6 sequence lengths per kernel and figure: the A100 figure's
  // FlashAttention-2 and Triton bars (48), the H100 figure's FlashAttention-2 bars (24).
  const auto a100 = rows_of("NVIDIA A100 SXM");
  ASSERT_EQ(a100.size(), 48u);
  EXPECT_EQ(std::ranges::count(a100, std::string("flash-attention-triton"),
                               &AttentionMeasurement::kernel),
            24);
  // The first data row (line 17, after 15 source lines and the column names): non-causal, head dim
  // 64, seq 512, batch 16384 / 512 = 32, heads 2048 / 64 = 32, 132 TFLOP/s.
  EXPECT_EQ(a100[0].line, 17);
  EXPECT_FALSE(a100[0].causal);
  EXPECT_EQ(a100[0].head_dim, 64);
  EXPECT_EQ(a100[0].seq, 512);
  EXPECT_EQ(a100[0].batch * a100[0].heads, 32 * 32);
  EXPECT_DOUBLE_EQ(a100[0].flops_per_second, 132e12);
  EXPECT_EQ(rows_of("H100").size(), 24u);
  // Both GPUs at once: the table holds two devices, so a device must be chosen.
  EXPECT_NE(error_of(read(kFile)).find("rows of 2 devices"), std::string::npos);
}

TEST(attention_fit, EfficiencyIsTheRateOverTheDensePeak) {
  const auto points = a100_points();
  // Causal, head dim 128, seq 2048: 155 TFLOP/s / 312 -> 0.4968; batch_heads 8 x 16 = 128.
  const auto it = std::ranges::find_if(points, [](const AttentionPoint& p) {
    return p.kernel == kFa2 && p.causal && p.head_dim == 128 && p.seq == 2048;
  });
  ASSERT_NE(it, points.end());
  EXPECT_DOUBLE_EQ(it->efficiency, 155e12 / 312e12);
  EXPECT_EQ(it->batch_heads, 128);
  // Against a 150 TFLOP/s peak (a wrong base): refused, naming the first row above it (line 18:
  // non-causal, head dim 64, seq 1024, 153 TFLOP/s).
  const PeakFlops low{1e12, 1e12, 150e12, 150e12, 0};
  auto r = attention_points(rows_of("NVIDIA A100 SXM"), low, kFile);
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_NE(std::get<std::string>(r).find(kFile + ":18: 153.0 TFLOP/s exceeds"), std::string::npos)
      << std::get<std::string>(r);
}

TEST(attention_fit, LookupInterpolatesInLogSeqAndHeadDimAndClamps) {
  ComputeModel c;
  c.attention_points = a100_points();
  const auto eff = [&](double seq, double hd, bool causal) {
    return measured_attention_efficiency(c, kFa2, seq, hd, causal)->efficiency;
  };
  // On a point: its own value (causal, 128, 4096: 173 / 312).
  EXPECT_DOUBLE_EQ(eff(4096, 128, true), 173.0 / 312);
  // Between 2048 (155) and 4096 (173) at their geometric mean: t = 0.5 -> 164 / 312.
  EXPECT_NEAR(eff(std::sqrt(2048.0 * 4096), 128, true), 164.0 / 312, 1e-12);
  // Head dim 96 between 64 and 128 at seq 4096 (causal 156 and 173):
  //   u = ln(96 / 64) / ln(128 / 64) = 0.58496 -> (156 + u * 17) / 312.
  const double u = std::log(1.5) / std::log(2.0);
  EXPECT_NEAR(eff(4096, 96, true), (156 + u * 17) / 312, 1e-12);
  // Clamped: seq 65,536 takes 16,384's value (189), seq 128 takes 512's (99), head dim 256
  // takes 128's, head dim 32 takes 64's (causal, 2048: 140).
  EXPECT_DOUBLE_EQ(eff(65536, 128, true), 189.0 / 312);
  EXPECT_DOUBLE_EQ(eff(128, 128, true), 99.0 / 312);
  EXPECT_DOUBLE_EQ(eff(2048, 256, true), 155.0 / 312);
  EXPECT_DOUBLE_EQ(eff(2048, 32, true), 140.0 / 312);
  // The measured shape reported with a clamped query: seq 16,384, batch_heads 1 x 16.
  const auto far = *measured_attention_efficiency(c, kFa2, 65536, 128, true);
  EXPECT_EQ(far.seq, 16384);
  EXPECT_NEAR(far.batch_heads, 16, 1e-9);
  // Only causal points: a non-causal query has no table.
  ComputeModel causal_only;
  for (const auto& p : c.attention_points)
    if (p.causal) causal_only.attention_points.push_back(p);
  EXPECT_FALSE(measured_attention_efficiency(causal_only, kFa2, 2048, 128, false).has_value());
  // Each kernel has its own curve: the Triton bars at causal, 128, 2048 are 68 TFLOP/s; a kernel
  // the profile has not measured has no table.
  EXPECT_DOUBLE_EQ(
      measured_attention_efficiency(c, "flash-attention-triton", 2048, 128, true)->efficiency,
      68.0 / 312);
  EXPECT_FALSE(measured_attention_efficiency(c, "cudnn", 2048, 128, true).has_value());
}

TEST(attention_fit, LeaveOneOutCoversEveryPoint) {
  // Each of the 48 points predicted from the other points of its kernel and mask (its curve's
  // neighbours; at a curve's end, clamped to the nearest remaining point of the same curve:
  // causal 128 at 512 from 1024, 133 vs 99 -> 34.3 %; never itself). The interior points
  // of a curve are predicted within a few per cent: causal 128 at 4096 from 2048 (155) and 8192
  // (182), t = 0.5 -> 168.5 vs 173, |168.5 - 173| / 173 = 2.6 %.
  const auto points = a100_points();
  const auto loo = attention_leave_one_out_pct(points);
  ASSERT_EQ(loo.size(), 48u);
  const auto it = std::ranges::find_if(points, [](const AttentionPoint& p) {
    return p.kernel == kFa2 && p.causal && p.head_dim == 128 && p.seq == 4096;
  });
  EXPECT_NEAR(loo[std::size_t(it - points.begin())], (173 - 168.5) / 173 * 100, 1e-9);
}

TEST(attention_fit, CarriesAKernelOverByItsSpeedRatioOnAnotherDevice) {
  // H100 has FlashAttention-2 bars only; the Triton kernel's points are its FA2 efficiency times
  // Triton / FA2 on A100 at the same key. Causal, head dim 128, seq 16384 (the file's lines):
  // H100 FA2 328 TFLOP/s over the 989.4 TFLOP/s peak (h100-sxm-datasheet); A100 Triton 80 and
  // FA2 189 TFLOP/s -> 328 / 989.4 x 80 / 189 = 0.14032.
  const PeakFlops h100{67e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12};
  const auto own = rows_of("H100");
  auto fitted = attention_points(own, h100, kFile);
  ASSERT_TRUE(std::holds_alternative<std::vector<AttentionPoint>>(fitted));
  const auto& own_points = std::get<std::vector<AttentionPoint>>(fitted);
  auto r = relative_attention_points(own_points, own, rows_of("A100"), "flash-attention-triton",
                                     std::string(kFa2), kFile);
  ASSERT_TRUE(std::holds_alternative<std::vector<AttentionPoint>>(r)) << std::get<std::string>(r);
  const auto& pts = std::get<std::vector<AttentionPoint>>(r);
  ASSERT_EQ(pts.size(), 24u);  // every key of the H100 FA2 bars has both A100 bars
  const auto it = std::ranges::find_if(
      pts, [](const AttentionPoint& p) { return p.causal && p.head_dim == 128 && p.seq == 16384; });
  ASSERT_NE(it, pts.end());
  EXPECT_EQ(it->kernel, "flash-attention-triton");
  EXPECT_NEAR(it->efficiency, 328 / 989.4 * 80 / 189, 1e-9);
  EXPECT_EQ(it->batch_heads, 16);  // the H100 bar's batch 1 x 16 heads, not A100's

  // A hand-made pair: device B's FA2 at 0.5; on A, kernel k runs at 60 of FA2's 120 -> 0.25. A
  // key where A lacks k (seq 2048) gives no point.
  const std::string header =
      "gpu,kernel,dtype,causal,head_dim,seq_len,batch,heads,fwd_bwd_tflops\n";
  const auto parse = [&](const std::string& text, const std::string& device) {
    return std::get<std::vector<AttentionMeasurement>>(parse_attention_csv(text, "t.csv", device));
  };
  const std::string two = header +
                          "A,fa2,fp16,true,128,1024,1,1,120\nA,k,fp16,true,128,1024,1,1,60\n"
                          "A,fa2,fp16,true,128,2048,1,1,130\n"
                          "B,fa2,fp16,true,128,1024,1,1,500\nB,fa2,fp16,true,128,2048,1,1,600\n";
  const PeakFlops unit{0, 0, 1000e12, 1000e12, 0};
  const auto b = parse(two, "B");
  const auto b_points = std::get<std::vector<AttentionPoint>>(attention_points(b, unit, "t.csv"));
  auto small = relative_attention_points(b_points, b, parse(two, "A"), "k", "fa2", "t.csv");
  ASSERT_TRUE(std::holds_alternative<std::vector<AttentionPoint>>(small));
  ASSERT_EQ(std::get<std::vector<AttentionPoint>>(small).size(), 1u);
  EXPECT_NEAR(std::get<std::vector<AttentionPoint>>(small)[0].efficiency, 0.5 * 60 / 120, 1e-12);

  // Errors: the kernel as its own reference; the device measuring the kernel itself; no shared key.
  const auto error = [](const auto& v) {
    return std::holds_alternative<std::string>(v) ? std::get<std::string>(v) : "(no error)";
  };
  EXPECT_NE(error(relative_attention_points(b_points, b, parse(two, "A"), "fa2", "fa2", "t.csv"))
                .find("both \"fa2\""),
            std::string::npos);
  const auto a = parse(two, "A");
  const auto a_points = std::get<std::vector<AttentionPoint>>(attention_points(a, unit, "t.csv"));
  EXPECT_NE(error(relative_attention_points(a_points, a, b, "k", "fa2", "t.csv"))
                .find("t.csv:3: k is measured on A itself"),
            std::string::npos);
  EXPECT_NE(error(relative_attention_points(b_points, b, a, "other", "fa2", "t.csv"))
                .find("t.csv: no mask, head_dim and seq_len"),
            std::string::npos);
}

TEST(attention_fit, MalformedTablesNameFileAndLine) {
  const std::string header =
      "gpu,kernel,dtype,causal,head_dim,seq_len,batch,heads,fwd_bwd_tflops\n";
  EXPECT_NE(error_of("gpu,dtype\nx,fp16\n").find("t.csv:1: needs columns gpu, kernel, dtype"),
            std::string::npos);
  EXPECT_NE(error_of(header + "g,k,fp16,maybe,64,512,1,1,10\n").find("t.csv:2: causal \"maybe\""),
            std::string::npos);
  EXPECT_NE(error_of(header + "g,k,fp32,true,64,512,1,1,10\n").find("t.csv:2: dtype \"fp32\""),
            std::string::npos);
  EXPECT_NE(error_of(header + "g,k,fp16,true,64,0,1,1,10\n").find("t.csv:2: head_dim, seq_len"),
            std::string::npos);
  EXPECT_NE(error_of(header + "g,k,fp16,true,64,512,1,1,10\ng,k,bf16,true,64,512,2,2,11\n")
                .find("t.csv:3: repeats line 2"),
            std::string::npos);
  EXPECT_NE(error_of(header + "g,k,fp16,true,64,512,1,1\n").find("t.csv:2: expected at least 9"),
            std::string::npos);
  EXPECT_NE(error_of(header + "g,k,fp16,true,64,512,1,1,10\n", "H100").find("no attention rows"),
            std::string::npos);
}

}  // namespace
}  // namespace shardsim::calibrate
