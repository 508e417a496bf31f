#include "kernels/common/sweep_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace shardsim::kernels {
namespace {

constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kMiB = 1024 * kKiB;

struct LayerGemm {
  const char* op;
  std::int64_t n;
  std::int64_t k;
};

void add_shape(
    std::vector<GemmShape>& out,
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool, bool>, std::size_t>& index,
    GemmShape shape) {
  const auto key = std::make_tuple(shape.m, shape.n, shape.k, shape.trans_a, shape.trans_b);
  if (const auto it = index.find(key); it != index.end()) {
    auto& uses = out[it->second].uses;
    uses.insert(uses.end(), shape.uses.begin(), shape.uses.end());
    return;
  }
  index.emplace(key, out.size());
  out.push_back(std::move(shape));
}

using ShapeIndex =
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool, bool>, std::size_t>;

// Square GEMMs n = k = m for an efficiency-versus-size curve, appended to `shapes` through
// add_shape: a square that is also a layer GEMM gets the use "square" instead of a second entry
// (descriptor names, which are built from the shape, must be unique per sweep).
void add_square_shapes(std::vector<GemmShape>& shapes, const std::vector<std::int64_t>& sizes) {
  ShapeIndex index;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const GemmShape& g = shapes[i];
    index.emplace(std::make_tuple(g.m, g.n, g.k, g.trans_a, g.trans_b), i);
  }
  for (const std::int64_t s : sizes) add_shape(shapes, index, {s, s, s, false, false, {"square"}});
}

LoopConfig quick_loop() {
  LoopConfig c;
  c.warmup_runs = 1;
  c.min_repetitions = 3;
  c.max_repetitions = 10;
  c.min_total_s = 0.01;
  return c;
}

}  // namespace

std::vector<GemmShape> transformer_gemm_shapes(const TransformerSweep& sweep) {
  std::vector<GemmShape> out;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool, bool>, std::size_t> index;
  const std::int64_t s = sweep.scale_down;
  const std::int64_t m = sweep.tokens / s;
  for (const std::int64_t h_full : sweep.hidden) {
    for (const std::int64_t t : sweep.tp) {
      const std::int64_t h = h_full / s;
      const std::int64_t ffn = sweep.ffn_ratio * h;
      const LayerGemm layer[] = {{"qkv", 3 * h / t, h},
                                 {"attn_out", h, h / t},
                                 {"mlp_up", ffn / t, h},
                                 {"mlp_down", h, ffn / t},
                                 {"logits", sweep.vocab / s / t, h}};
      for (const LayerGemm& g : layer) {
        const std::string use = fmt::format("h{}_tp{}_{}", h_full, t, g.op);
        add_shape(out, index, {m, g.n, g.k, false, false, {use + "_fwd"}});
        add_shape(out, index, {m, g.k, g.n, false, true, {use + "_bwd_data"}});
        add_shape(out, index, {g.k, g.n, m, true, false, {use + "_bwd_weight"}});
      }
    }
  }
  for (const std::int64_t d : sweep.head_dims) {
    const std::string use = fmt::format("s{}_d{}_attention", m, d);
    add_shape(out, index, {m, m, d, false, true, {use + "_scores"}});
    add_shape(out, index, {m, d, m, false, false, {use + "_values"}});
    add_shape(out, index, {m, d, m, true, false, {use + "_bwd_transposed"}});
  }
  return out;
}

std::vector<std::int64_t> geometric(std::int64_t lo, std::int64_t hi, std::int64_t factor) {
  std::vector<std::int64_t> out;
  for (std::int64_t v = lo; v <= hi; v *= factor) out.push_back(v);
  return out;
}

std::vector<int> collective_group_sizes(int world) {
  std::vector<int> out;
  for (int g = 2; g <= world; g *= 2) out.push_back(g);
  if (world >= 2 && out.back() != world) out.push_back(world);
  return out;
}

// CPU sizes are the GPU sizes divided by 8 (hidden, tokens, vocab) so that the --quick sweep with
// two ranks on two cores stays near 30 s; the shapes keep their transformer proportions.
SweepPlan make_sweep_plan(BackendKind backend, bool quick) {
  SweepPlan p;
  p.backend = backend;
  p.quick = quick;
  TransformerSweep t;
  std::vector<std::int64_t> squares;
  if (backend == BackendKind::kCpu) {
    t.scale_down = 8;
    t.hidden = quick ? std::vector<std::int64_t>{1024, 4096}
                     : std::vector<std::int64_t>{1024, 2048, 4096, 8192};
    t.tp = quick ? std::vector<std::int64_t>{1, 4} : std::vector<std::int64_t>{1, 2, 4, 8};
    t.tokens = 2048;
    p.gemm_dtypes = {"fp32"};
    t.head_dims = {32, 128};
    squares = quick ? geometric(64, 256, 4) : geometric(64, 1024, 2);
    // 4096 x 2048 (32 MiB per tensor, Adam 224 MiB) is far beyond the last-level cache: the
    // optimizer step and large activations run at DRAM speed, not at the cached rate.
    p.memory_shapes =
        quick ? std::vector<MemoryShape>{{64, 1024}, {512, 1024}, {4096, 2048}}
              : std::vector<MemoryShape>{{64, 1024}, {512, 1024}, {2048, 2048}, {4096, 2048}};
    p.copy_bytes = quick ? geometric(4 * kKiB, 16 * kMiB, 16) : geometric(4 * kKiB, 64 * kMiB, 4);
    p.collective_bytes = quick ? geometric(kKiB, 64 * kMiB, 16) : geometric(8, 128 * kMiB, 4);
    p.launches_per_run = 1024;
  } else {
    t.hidden = quick ? std::vector<std::int64_t>{4096, 8192}
                     : std::vector<std::int64_t>{1024, 2048, 4096, 8192};
    t.tp = quick ? std::vector<std::int64_t>{1, 8} : std::vector<std::int64_t>{1, 2, 4, 8};
    t.tokens = 4096;
    t.head_dims = {64, 128};
    // fp16 in the quick sweep too: a profile needs an fp16 peak (the fallback of every dtype).
    p.gemm_dtypes = quick ? std::vector<std::string>{"fp32", "fp16", "bf16"}
                          : std::vector<std::string>{"fp32", "tf32", "fp16", "bf16", "fp8"};
    squares = quick ? geometric(512, 8192, 4) : geometric(256, 16384, 2);
    p.memory_shapes = quick ? std::vector<MemoryShape>{{4096, 4096}}
                            : std::vector<MemoryShape>{{1024, 1024}, {4096, 4096}, {8192, 8192}};
    p.copy_bytes =
        quick ? geometric(64 * kKiB, 256 * kMiB, 16) : geometric(4 * kKiB, kMiB * 1024, 4);
    p.collective_bytes = quick ? geometric(kKiB, 256 * kMiB, 16) : geometric(8, kMiB * 1024, 2);
    p.launches_per_run = 256;
  }
  p.gemm_shapes = transformer_gemm_shapes(t);
  add_square_shapes(p.gemm_shapes, squares);
  if (quick) p.loop = quick_loop();
  return p;
}

}  // namespace shardsim::kernels
