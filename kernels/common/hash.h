// Deterministic pseudo-random values shared by host and device code (the same bits on both, so a
// CUDA kernel and its C++ reference agree exactly): fills of benchmark inputs and dropout masks.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SHARDSIM_HD __host__ __device__
#else
#define SHARDSIM_HD
#endif

namespace shardsim::kernels {

// splitmix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mix.
SHARDSIM_HD inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) with 24 random bits: exact in float, identical on host and device.
SHARDSIM_HD inline float uniform01(std::uint64_t index, std::uint64_t seed) {
  return static_cast<float>(mix64(index ^ mix64(seed)) >> 40) * (1.0f / 16777216.0f);
}

// A multiple of 1/8 in [-1, 1]: exact in fp32, tf32, fp16, bf16 and fp8 e4m3, so GEMM inputs are
// the same numbers in every dtype and fp32 accumulation of their products is exact.
SHARDSIM_HD inline float eighths(std::uint64_t index, std::uint64_t seed) {
  return static_cast<float>(static_cast<int>(mix64(index ^ mix64(seed)) % 17u) - 8) * 0.125f;
}

// Dropout keeps element i when uniform01(i, seed) >= p.
SHARDSIM_HD inline bool dropout_keep(std::uint64_t index, std::uint64_t seed, float p) {
  return uniform01(index, seed) >= p;
}

}  // namespace shardsim::kernels
