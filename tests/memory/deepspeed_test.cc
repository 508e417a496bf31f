// DeepSpeed's closed-form model-state estimators (simulator/memory/deepspeed_estimator.h) against
// the numbers printed in DeepSpeed's own documentation.
//
// Source for DS-01 and DS-02: microsoft/DeepSpeed docs/code-docs/source/memory.rst ("Memory
// Requirements"); the estimator code is deepspeed/runtime/zero/stage_1_and_2.py::
// estimate_zero2_model_states_mem_needs and stage3.py::estimate_zero3_model_states_mem_needs.
// DeepSpeed prints "GB" but divides by 2^30 (GiB); the DS-02 example prints bytes >> 20 ("MB").
// Source for DS-03: microsoft/DeepSpeed docs/_tutorials/zero.md (lines 29-46).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "simulator/core/units.h"
#include "simulator/memory/deepspeed_estimator.h"
#include "simulator/memory/model_states.h"

namespace shardsim {
namespace {

// As DeepSpeed prints it: f"{x / 2**30:.2f}GB".
double gib2(double bytes) {
  return std::round(bytes / kGiB * 100) / 100;
}

// DS-01: memory.rst, t5-3b on 1 node x 8 GPUs, the *_cold estimators with total_params = 2851e6,
// largest_layer_params = 32e6, additional_buffer_factor = 1.5. Printed (per CPU | per GPU):
//   ZeRO-2 cpu_offload=1:                                 127.45 |  5.31
//   ZeRO-2 cpu_offload=0:                                 127.45 | 15.93
//   ZeRO-3 offload=1, offload_params=1, zero_init=1:       71.69 |  0.12
//   ZeRO-3 offload=1, offload_params=1, zero_init=0:      127.45 |  0.12
//   ZeRO-3 offload=1, offload_params=0, zero_init=1:       63.72 |  0.78
//   ZeRO-3 offload=1, offload_params=0, zero_init=0:      127.45 |  0.78
//   ZeRO-3 offload=0, offload_params=0, zero_init=1:        1.43 |  6.09
//   ZeRO-3 offload=0, offload_params=0, zero_init=0:      127.45 |  6.09
// (The *_live variant prints 127.48 / 0.79 / 6.10 / 71.71 / 63.74 / 1.47: the real model has a
// few more parameters than 2851e6.)
constexpr double kT5_3bParams = 2851e6;
constexpr double kT5_3bLargestLayer = 32e6;

TEST(deepspeed_estimator, DS01_Zero2_T5_3b) {
  // offload: gpu 2P = 5.702e9 B = 5.31 GiB; cpu P*max(4*8, 16)*1.5 = 48P = 127.45 GiB.
  const auto off = deepspeed_zero2_estimate(kT5_3bParams, 8, 1, true);
  EXPECT_DOUBLE_EQ(off.gpu_bytes, 2 * kT5_3bParams);
  EXPECT_DOUBLE_EQ(off.cpu_bytes, 48 * kT5_3bParams);
  EXPECT_DOUBLE_EQ(gib2(off.gpu_bytes), 5.31);
  EXPECT_DOUBLE_EQ(gib2(off.cpu_bytes), 127.45);
  // no offload: gpu 4P + 16P/8 = 6P = 15.93 GiB; cpu P*4*8*1.5 = 48P = 127.45 GiB.
  const auto on = deepspeed_zero2_estimate(kT5_3bParams, 8, 1, false);
  EXPECT_DOUBLE_EQ(on.gpu_bytes, 6 * kT5_3bParams);
  EXPECT_DOUBLE_EQ(on.cpu_bytes, 48 * kT5_3bParams);
  EXPECT_DOUBLE_EQ(gib2(on.gpu_bytes), 15.93);
  EXPECT_DOUBLE_EQ(gib2(on.cpu_bytes), 127.45);
}

TEST(deepspeed_estimator, DS01_Zero3_T5_3b) {
  struct Case {
    bool offload_params, offload_optimizer, zero_init;
    double gpu_gib, cpu_gib;
  };
  // gpu: 4LL = 0.128e9 B; + 2P/8 (offload optimizer) = 0.84075e9; + 18P/8 = 6.54275e9.
  // cpu: zero_init: 18P*1.5 = 27P, 16P*1.5 = 24P, LL*4*8*1.5 = 48LL; otherwise 48P.
  const Case cases[] = {
      {true, true, true, 0.12, 71.69},  {true, true, false, 0.12, 127.45},
      {false, true, true, 0.78, 63.72}, {false, true, false, 0.78, 127.45},
      {false, false, true, 6.09, 1.43}, {false, false, false, 6.09, 127.45},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(testing::Message()
                 << "offload_params " << c.offload_params << " offload_optimizer "
                 << c.offload_optimizer << " zero_init " << c.zero_init);
    const auto e = deepspeed_zero3_estimate(kT5_3bParams, kT5_3bLargestLayer, 8, 1,
                                            c.offload_params, c.offload_optimizer, c.zero_init);
    EXPECT_DOUBLE_EQ(gib2(e.gpu_bytes), c.gpu_gib);
    EXPECT_DOUBLE_EQ(gib2(e.cpu_bytes), c.cpu_gib);
  }
  // The exact byte counts behind the printed values.
  const double P = kT5_3bParams, LL = kT5_3bLargestLayer;
  EXPECT_DOUBLE_EQ(deepspeed_zero3_estimate(P, LL, 8, 1, true, true, true).gpu_bytes, 4 * LL);
  EXPECT_DOUBLE_EQ(deepspeed_zero3_estimate(P, LL, 8, 1, true, true, true).cpu_bytes, 27 * P);
  EXPECT_DOUBLE_EQ(deepspeed_zero3_estimate(P, LL, 8, 1, false, true, true).gpu_bytes,
                   4 * LL + 2 * P / 8);
  EXPECT_DOUBLE_EQ(deepspeed_zero3_estimate(P, LL, 8, 1, false, true, true).cpu_bytes, 24 * P);
  EXPECT_DOUBLE_EQ(deepspeed_zero3_estimate(P, LL, 8, 1, false, false, true).gpu_bytes,
                   4 * LL + 18 * P / 8);
  EXPECT_DOUBLE_EQ(deepspeed_zero3_estimate(P, LL, 8, 1, false, false, true).cpu_bytes, 48 * LL);
  EXPECT_DOUBLE_EQ(deepspeed_zero3_estimate(P, LL, 8, 1, false, false, false).cpu_bytes, 48 * P);
}

// DS-02: memory.rst "Discussion / GPU RAM / ZeRO-3" worked example for t5-large on
// total_gpus = 4 (one node of 4 GPUs): total params 737.67M, largest layer 32.90M,
//   largest_layer_memory = 4*LL                           -> 125 MB
//   case 1 (cpu_offload false, cpu_offload_params false) = 4LL + int(18P/4) -> 3291 MB
//   case 2 (cpu_offload true,  cpu_offload_params true)  = 4LL              ->  125 MB
//   case 3 (cpu_offload true,  cpu_offload_params false) = 4LL + int(2P/4)  ->  477 MB
// printed as `bytes >> 20`. These are the GPU side of the ZeRO-3 estimator: case 1 = no offload,
// case 2 = offload params + optimizer, case 3 = offload optimizer only.
std::int64_t mib_shift(double bytes) {
  return std::int64_t(bytes) >> 20;
}

TEST(deepspeed_estimator, DS02_Zero3_T5_Large_4Gpus) {
  const double P = 737.67e6, LL = 32.90e6;
  EXPECT_EQ(mib_shift(4 * LL), 125);  // 131.6e6 B = 125.5 MiB
  // case 1: 131.6e6 + 3319.515e6 = 3451.115e6 B = 3291.2 MiB
  EXPECT_EQ(mib_shift(deepspeed_zero3_estimate(P, LL, 4, 1, false, false, true).gpu_bytes), 3291);
  EXPECT_EQ(mib_shift(deepspeed_zero3_estimate(P, LL, 4, 1, false, false, false).gpu_bytes),
            3291);  // zero_init changes only the host side
  // case 2: 4LL only
  EXPECT_EQ(mib_shift(deepspeed_zero3_estimate(P, LL, 4, 1, true, true, true).gpu_bytes), 125);
  // case 3: 131.6e6 + 368.835e6 = 500.435e6 B = 477.3 MiB
  EXPECT_EQ(mib_shift(deepspeed_zero3_estimate(P, LL, 4, 1, false, true, true).gpu_bytes), 477);
}

// DS-03: DeepSpeed docs/_tutorials/zero.md: GPT-2 1.5B (48 layers, hidden 1600) with Adam needs
// 18 GB for the optimizer states alone (12 B/param x 1.5e9: fp32 master, momentum, variance);
// ZeRO stage 1 over 8 data-parallel GPUs leaves 18/8 = 2.25 GB per device.
TEST(deepspeed_tutorial, DS03_Gpt2_1_5B_Zero1OptimizerStates) {
  const auto b = state_bytes_per_param(Dtype::kFp16, GradDtype::kSame, Optimizer::kAdam, false);
  const double params = 1.5e9;
  EXPECT_DOUBLE_EQ(zero_sharded_states(params, b, 0, 8).optimizer, 18e9);
  EXPECT_DOUBLE_EQ(zero_sharded_states(params, b, 1, 8).optimizer, 2.25e9);
  // ZeRO-1 leaves the fp16 params (3 GB) and grads (3 GB) replicated.
  EXPECT_DOUBLE_EQ(zero_sharded_states(params, b, 1, 8).params, 3e9);
  EXPECT_DOUBLE_EQ(zero_sharded_states(params, b, 1, 8).grads, 3e9);
}

// The multi-node host-side rule: ZeRO-3 with zero_init divides the 18 / 16 B per param by the
// node count (memory.rst: gpus_factor = n_gpus / total_gpus = 1 / num_nodes).
TEST(deepspeed_estimator, Zero3HostSideScalesWithNodes) {
  const double P = 1e9, LL = 1e7;
  EXPECT_DOUBLE_EQ(deepspeed_zero3_estimate(P, LL, 8, 4, true, true, true).cpu_bytes,
                   P * 18 / 4 * 1.5);
  EXPECT_DOUBLE_EQ(deepspeed_zero3_estimate(P, LL, 8, 4, false, true, true).cpu_bytes,
                   P * 16 / 4 * 1.5);
  // Without zero_init: P * max(4 * n_gpus, 18 / nodes) * 1.5.
  EXPECT_DOUBLE_EQ(deepspeed_zero3_estimate(P, LL, 8, 4, true, true, false).cpu_bytes,
                   P * 32 * 1.5);
  EXPECT_DOUBLE_EQ(deepspeed_zero3_estimate(P, LL, 2, 1, true, true, false).cpu_bytes,
                   P * 18 * 1.5);
  // GPU side: 18P over all 32 GPUs.
  EXPECT_DOUBLE_EQ(deepspeed_zero3_estimate(P, LL, 8, 4, false, false, true).gpu_bytes,
                   4 * LL + 18 * P / 32);
}

}  // namespace
}  // namespace shardsim
