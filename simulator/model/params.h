// Parameter counts per layer and per model, with how each parameter group is split by tensor and
// expert parallelism. Counts are elements (not bytes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/model/model_config.h"

namespace shardsim {

enum class ParamShard {
  kReplicated,  // every TP rank holds a copy (norms, row-parallel biases, MLA down projections)
  kTensor,      // split over TP (column/row-parallel weights, vocabulary-parallel embeddings)
  kExpert,      // routed experts: split over EP (whole experts), each expert over TP
};

struct ParamGroup {
  std::string_view name;  // a string literal (static storage): groups are cheap to build
  double count = 0;
  ParamShard shard = ParamShard::kTensor;
  // A matmul weight of Transformer Engine's layers, which FP8 training runs in FP8 and keeps an
  // FP8 copy of (not the output layer's or the MoE router's: ops.h Op::outside_fp8).
  bool gemm_weight = false;
};

// Megatron pads the vocabulary to a multiple of `multiple` * tp (make-vocab-size-divisible-by).
[[nodiscard]] double padded_vocab(std::int64_t vocab, int tp, int multiple = 128);

[[nodiscard]] std::vector<ParamGroup> layer_params(const ModelConfig& m, int layer);
// Word embedding (split over TP) and, for learned positions, the position table of max_position
// rows (0 -> seq_len; the scenario checks require max_position >= seq_len).
[[nodiscard]] std::vector<ParamGroup> embedding_params(const ModelConfig& m, double vocab,
                                                       std::int64_t seq_len);
// Final norm and, when `with_projection`, the output projection (vocab x hidden, split over TP).
[[nodiscard]] std::vector<ParamGroup> output_params(const ModelConfig& m, double vocab,
                                                    bool with_projection);

[[nodiscard]] double sum_params(const std::vector<ParamGroup>& groups);

struct ParamTotals {
  double total = 0;      // every parameter once (tied embeddings counted once)
  double active = 0;     // used per token: routed experts count top_k / experts of their share
  double embedding = 0;  // word + position embeddings and an untied output projection
  // DeepSpeed's "largest layer" (runtime/zero/stage3.py model_to_params): the most parameters
  // one module holds itself (recurse=False), here the largest of the word and position
  // embeddings, the untied output projection and one block's modules (one expert; with SwiGLU,
  // the Llama-family layout, the gate, up, and query projections apart).
  double largest_layer = 0;
};

// Counts with the unpadded vocabulary (the model's own size).
[[nodiscard]] ParamTotals count_parameters(const ModelConfig& m, std::int64_t seq_len);

}  // namespace shardsim
