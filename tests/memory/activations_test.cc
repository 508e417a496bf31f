// Activation memory (simulator/memory/activations.h over model/ops.h) against Korthikanti et al.
// 2022, "Reducing Activation Recomputation in Large Transformer Models" (arXiv 2205.05198), and
// the pipeline in-flight counts (simulator/plan/plan.h) that turn per-layer bytes into a stage's.
//
// Per-layer formulas (bytes; 16-bit activations, 1-byte dropout masks; s seq, b micro-batch,
// h hidden, a heads, t TP):
//   none (eq. 1):                   s*b*h*(34 + 5as/h)
//   TP (eq. 2):                     s*b*h*(10 + 24/t + 5as/(h t))
//   TP + SP (eq. 4):                s*b*h*(34 + 5as/h)/t
//   TP + selective recompute:       s*b*h*(10 + 24/t)
//   TP + SP + selective (eq. 6):    34*s*b*h/t
//   full recompute (layer input):   2*s*b*h
// Case KOR-01 (test vector derived from these formulas with s = 2048 and the paper's Table 3
// configs; GiB = 2^30, printed to 4 decimals).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "simulator/core/units.h"
#include "simulator/memory/activations.h"
#include "simulator/model/ops.h"
#include "simulator/plan/plan.h"

namespace shardsim {
namespace {

constexpr double kSeq = 2048;

// As printed in KOR-01: GiB rounded to 4 decimals.
double gib4(double bytes) {
  return std::round(bytes / kGiB * 1e4) / 1e4;
}

// GPT-style layer of Korthikanti et al.: GeLU MLP of width 4h, LayerNorm, dropout, biases, no
// flash attention (the s^2 score tensors are stored).
ModelConfig gpt_layer(std::int64_t hidden, int heads) {
  ModelConfig m;
  m.name = "korthikanti";
  m.layers = 1;
  m.hidden = hidden;
  m.heads = heads;
  m.ffn_hidden = 4 * hidden;
  m.vocab = 51200;
  m.ffn_type = FfnType::kGelu;
  m.norm = NormType::kLayerNorm;
  m.position = PositionType::kLearned;
  m.tied_embeddings = true;
  m.bias = true;
  m.dropout = true;
  return m;
}

enum class Mode { kNone, kTp, kTpSp, kTpSel, kTpSpSel, kFull };

ActivationOptions options(Mode mode, int t) {
  switch (mode) {
    case Mode::kNone:
      return {1, false, Recompute::kNone, Dtype::kBf16};
    case Mode::kTp:
      return {t, false, Recompute::kNone, Dtype::kBf16};
    case Mode::kTpSp:
      return {t, true, Recompute::kNone, Dtype::kBf16};
    case Mode::kTpSel:
      return {t, false, Recompute::kSelective, Dtype::kBf16};
    case Mode::kTpSpSel:
      return {t, true, Recompute::kSelective, Dtype::kBf16};
    case Mode::kFull:  // the table's "full (2sbh)" column keeps the whole layer input (no /t)
      return {t, false, Recompute::kFull, Dtype::kBf16};
  }
  return {};
}

struct Kor01Row {
  std::string name;
  double b, h, a, t;
  int layers;
  // printed GiB: none, TP, TP+SP, TP+sel, TP+SP+sel, full
  double printed[6];
};

// KOR-01 table (s = 2048, t = 8):
const Kor01Row kKor01[] = {
    {"22B", 4, 6144, 64, 8, 48, {6.5938, 1.2344, 0.8242, 0.6094, 0.1992, 0.0938}},
    {"175B", 1, 12288, 96, 8, 96, {2.6719, 0.5391, 0.3340, 0.3047, 0.0996, 0.0469}},
    {"530B", 1, 20480, 128, 8, 105, {3.8281, 0.8203, 0.4785, 0.5078, 0.1660, 0.0781}},
    {"1T", 1, 25600, 160, 8, 128, {4.7852, 1.0254, 0.5981, 0.6348, 0.2075, 0.0977}},
};

// The closed-form bytes of each mode (Korthikanti Table 2).
double formula_bytes(const Kor01Row& r, Mode mode) {
  const double sbh = kSeq * r.b * r.h, t = r.t;
  const double core = 5 * r.a * kSeq * kSeq * r.b;  // 5 a s^2 b
  switch (mode) {
    case Mode::kNone:
      return 34 * sbh + core;
    case Mode::kTp:
      return sbh * (10 + 24 / t) + core / t;
    case Mode::kTpSp:
      return (34 * sbh + core) / t;
    case Mode::kTpSel:
      return sbh * (10 + 24 / t);
    case Mode::kTpSpSel:
      return 34 * sbh / t;
    case Mode::kFull:
      return 2 * sbh;
  }
  return 0;
}

double library_bytes(const Kor01Row& r, Mode mode) {
  const ModelConfig m = gpt_layer(std::int64_t(r.h), int(r.a));
  const OpShape shape{kSeq, kSeq, r.b, false};
  const auto ops = layer_ops(m, 0, shape);
  return layer_activation_bytes(ops, kSeq * r.b, r.h, options(mode, int(r.t)));
}

constexpr Mode kModes[] = {Mode::kNone,  Mode::kTp,      Mode::kTpSp,
                           Mode::kTpSel, Mode::kTpSpSel, Mode::kFull};
const char* const kModeNames[] = {"none", "TP", "TP+SP", "TP+sel", "TP+SP+sel", "full"};

TEST(activation_korthikanti, KOR01_PerLayerBytesExact) {
  for (const auto& r : kKor01) {
    for (int i = 0; i < 6; ++i) {
      SCOPED_TRACE(r.name + " " + kModeNames[i]);
      EXPECT_DOUBLE_EQ(library_bytes(r, kModes[i]), formula_bytes(r, kModes[i]));
    }
  }
}

TEST(activation_korthikanti, KOR01_PerLayerGiBAsPrinted) {
  for (const auto& r : kKor01) {
    for (int i = 0; i < 6; ++i) {
      SCOPED_TRACE(r.name + " " + kModeNames[i]);
      EXPECT_DOUBLE_EQ(gib4(library_bytes(r, kModes[i])), r.printed[i]);
    }
  }
}

// A few values in exact bytes, worked out by hand.
// 175B: s*b*h = 2048*12288 = 25,165,824; 5as/h = 5*96*2048/12288 = 80.
//   none = 114 sbh = 2,868,903,936 B (2.671875 GiB); TP+SP+sel = 34/8 sbh = 106,954,752 B.
// 22B: s*b*h = 2048*4*6144 = 50,331,648; 5as^2b = 5*64*2048^2*4 = 5,368,709,120.
//   none = 34 sbh + 5as^2b = 1,711,276,032 + 5,368,709,120 = 7,079,985,152 B (6.59375 GiB).
TEST(activation_korthikanti, KOR01_HandWorkedBytes) {
  EXPECT_DOUBLE_EQ(library_bytes(kKor01[1], Mode::kNone), 2868903936.0);
  EXPECT_DOUBLE_EQ(library_bytes(kKor01[1], Mode::kTpSpSel), 106954752.0);
  EXPECT_DOUBLE_EQ(library_bytes(kKor01[1], Mode::kFull), 50331648.0);
  EXPECT_DOUBLE_EQ(library_bytes(kKor01[0], Mode::kNone), 7079985152.0);
}

// Itemisation of eq. 1 (Korthikanti §4.1): attention 11 sbh + 5as^2 b, MLP 19 sbh, LayerNorms
// 4 sbh. Check the saved tensors of the op list add up to exactly these groups.
TEST(activation_korthikanti, Eq1Itemisation) {
  const double b = 1, h = 12288, a = 96;
  const ModelConfig m = gpt_layer(std::int64_t(h), int(a));
  const auto ops = layer_ops(m, 0, OpShape{kSeq, kSeq, b, false});
  const double sbh = kSeq * b * h;
  double norms = 0, attention = 0, mlp = 0;
  const ActivationOptions o{1, false, Recompute::kNone, Dtype::kBf16};
  for (const auto& op : ops) {
    const double bytes = saved_bytes({op}, o);
    if (op.kind == OpKind::kNorm)
      norms += bytes;
    else if (op.name == "mlp_dropout_out" || op.name.rfind("fc", 0) == 0 || op.name == "gelu")
      mlp += bytes;
    else
      attention += bytes;
  }
  EXPECT_DOUBLE_EQ(norms, 4 * sbh);
  EXPECT_DOUBLE_EQ(mlp, 19 * sbh);
  EXPECT_DOUBLE_EQ(attention, 11 * sbh + 5 * a * kSeq * kSeq * b);
}

// Selective recomputation removes the 5as/h share: GPT-3 (5as/h = 80) 80/114 = 70.2% ("70%").
TEST(activation_korthikanti, SelectiveSavesSeventyPercentOnGpt3) {
  const auto& r = kKor01[1];
  const double none = library_bytes(r, Mode::kNone);
  Kor01Row single = r;
  single.t = 1;
  const double sel = library_bytes(single, Mode::kTpSel);  // tp = 1, selective
  EXPECT_NEAR(1 - sel / none, 80.0 / 114.0, 1e-12);
}

// First-stage totals for 175B (L = 96): under 1F1B the first stage holds p micro-batches of L/p
// layers = L layers' worth, independent of p. KOR-01: none 256.5, TP 51.75, TP+SP 32.06,
// TP+sel 29.25, TP+SP+sel 9.56, full 4.5 GiB (exact: 256.5, 51.75, 32.0625, 29.25, 9.5625, 4.5).
TEST(activation_pipeline, KOR01_FirstStageTotals175B) {
  const auto& r = kKor01[1];
  const double exact[] = {256.5, 51.75, 32.0625, 29.25, 9.5625, 4.5};
  const double printed[] = {256.5, 51.75, 32.06, 29.25, 9.56, 4.5};
  for (int p : {2, 4, 8, 16}) {
    const std::int64_t m = 64;  // global batch 64 at b = 1 (KOR-03), m >= p
    const double in_flight = in_flight_microbatches(Schedule::k1F1B, 0, p, 1, m);
    EXPECT_DOUBLE_EQ(in_flight, p);
    const double layers_per_stage = double(r.layers / p);
    for (int i = 0; i < 6; ++i) {
      SCOPED_TRACE(testing::Message() << "p " << p << " " << kModeNames[i]);
      const double total = in_flight * layers_per_stage * library_bytes(r, kModes[i]);
      EXPECT_DOUBLE_EQ(total / kGiB, exact[i]);
      EXPECT_DOUBLE_EQ(std::round(total / kGiB * 100) / 100, printed[i]);
    }
  }
}

// In-flight micro-batches on stage i of p (plan.h): GPipe m; 1F1B min(p - i, m); ZB-H1 p on
// every stage (Qi et al. §2.1: W passes are delayed so every stage holds p, the first stage no
// more than 1F1B's p); ZB-H2 2p - 1 (about twice 1F1B); interleaved with v chunks: on stage 0
// p * (1 + (p-1)/(p v)) (Korthikanti §4.2.3's interleaving factor).
TEST(activation_pipeline, InFlightMicrobatchesBySchedule) {
  for (int p : {2, 4, 8}) {
    const std::int64_t m = 64;
    SCOPED_TRACE(testing::Message() << "p " << p);
    EXPECT_DOUBLE_EQ(in_flight_microbatches(Schedule::kGpipe, 0, p, 1, m), double(m));
    EXPECT_DOUBLE_EQ(in_flight_microbatches(Schedule::k1F1B, 0, p, 1, m), p);
    EXPECT_DOUBLE_EQ(in_flight_microbatches(Schedule::kZbH1, 0, p, 1, m),
                     in_flight_microbatches(Schedule::k1F1B, 0, p, 1, m));
    EXPECT_DOUBLE_EQ(in_flight_microbatches(Schedule::kZbH2, 0, p, 1, m), 2.0 * p - 1);
    for (int v : {2, 3, 4}) {
      EXPECT_DOUBLE_EQ(in_flight_microbatches(Schedule::kInterleaved, 0, p, v, m),
                       p * (1 + double(p - 1) / (double(p) * v)));
    }
    // Later stages hold fewer under 1F1B (p - i; the last stage one); the zero-bubble schedules
    // hold their first stage's count everywhere.
    for (int i = 0; i < p; ++i) {
      EXPECT_DOUBLE_EQ(in_flight_microbatches(Schedule::k1F1B, i, p, 1, m), double(p - i));
      EXPECT_DOUBLE_EQ(in_flight_microbatches(Schedule::kZbH1, i, p, 1, m), double(p));
      EXPECT_DOUBLE_EQ(in_flight_microbatches(Schedule::kZbH2, i, p, 1, m), 2.0 * p - 1);
      EXPECT_DOUBLE_EQ(in_flight_microbatches(Schedule::kGpipe, i, p, 1, m), double(m));
    }
  }
  // Fewer micro-batches than stages: capped at m.
  EXPECT_DOUBLE_EQ(in_flight_microbatches(Schedule::k1F1B, 0, 8, 1, 3), 3);
  EXPECT_DOUBLE_EQ(in_flight_microbatches(Schedule::kZbH2, 0, 8, 1, 5), 5);
}

// 175B with the interleaved schedule (p = 8, v = 2): the first stage holds
// L * (1 + (p-1)/(p v)) = 96 * (1 + 7/16) = 138 layers' worth; with TP+SP+sel that is
// 138 * 0.099609375 = 13.74609375 GiB.
TEST(activation_pipeline, InterleavedFirstStage175B) {
  const auto& r = kKor01[1];
  const int p = 8, v = 2;
  const double in_flight = in_flight_microbatches(Schedule::kInterleaved, 0, p, v, 64);
  EXPECT_DOUBLE_EQ(in_flight, 11.5);
  const double total = in_flight * double(r.layers / p) * library_bytes(r, Mode::kTpSpSel);
  EXPECT_DOUBLE_EQ(total / kGiB, 13.74609375);
}

// Full recomputation with sequence parallelism keeps the layer input split over TP (2sbh/t).
TEST(activation_korthikanti, FullRecomputeWithSpSplitsInput) {
  const auto& r = kKor01[1];
  const ModelConfig m = gpt_layer(std::int64_t(r.h), int(r.a));
  const auto ops = layer_ops(m, 0, OpShape{kSeq, kSeq, r.b, false});
  const double sbh = kSeq * r.b * r.h;
  EXPECT_DOUBLE_EQ(
      layer_activation_bytes(ops, kSeq * r.b, r.h, {8, true, Recompute::kFull, Dtype::kBf16}),
      2 * sbh / 8);
  EXPECT_DOUBLE_EQ(
      layer_activation_bytes(ops, kSeq * r.b, r.h, {1, false, Recompute::kFull, Dtype::kFp32}),
      4 * sbh);
}

}  // namespace
// A MoE layer's router runs in bf16 outside Transformer Engine and keeps its 16-bit input, which
// the shared experts read; under fp8 their first GEMM, a Transformer Engine layer, keeps its own
// 1-byte copy as well (found by review, 2026-11-29). Tokens t = 64 x 1, h = 256: t h = 16,384
// elements, so one shared expert adds 16,384 B under fp8 and nothing under bf16.
TEST(activation_moe, SharedExpertsKeepAnFp8CopyOfTheRouterInputUnderFp8) {
  ModelConfig m = gpt_layer(256, 4);
  m.moe.experts = 4;
  m.moe.top_k = 1;
  m.moe.expert_ffn_hidden = 512;
  const OpShape shape{64, 64, 1, false};
  const auto bytes = [&](int shared, Dtype precision) {
    m.moe.shared_experts = shared;
    const ActivationOptions o{1, false, Recompute::kNone, precision};
    double total = 0;
    for (const auto& op : layer_ops(m, 0, shape))
      if (op.name == "shared_expert_fc1" || op.name == "router") total += saved_bytes({op}, o);
    return total;
  };
  EXPECT_DOUBLE_EQ(bytes(1, Dtype::kFp8) - bytes(0, Dtype::kFp8), 16384);
  EXPECT_DOUBLE_EQ(bytes(1, Dtype::kBf16) - bytes(0, Dtype::kBf16), 0);
  // The router's input is 16-bit under fp8 too: 2 B x 16,384, plus its fp32 probabilities
  // t x experts x 4 B = 64 x 4 x 4 = 1,024 B.
  EXPECT_DOUBLE_EQ(bytes(0, Dtype::kFp8), 2 * 16384 + 1024);
}

}  // namespace shardsim
