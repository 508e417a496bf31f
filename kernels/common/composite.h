// The composite workload of `shardsim validate`: training steps of a small GPT-style transformer
// (learned positions, pre-LayerNorm blocks of unfused causal attention and a GeLU MLP, no biases or
// dropout, untied output layer) in fp32, data-parallel over the ranks: forward, backward (input
// and weight gradients), one sum all-reduce of the flat gradient buffer, Adam. Its ops are those
// simulator/model/ops.h lists for the same model (embedding_ops, layer_ops with flash_attention
// false, output_ops), with the same GEMM shapes. One model (composite_model.h) runs on each
// backend's kernels: kernels/cpu/composite.h (OpenBLAS, C++, MPI) and kernels/cuda/composite.h
// (cuBLAS, CUDA kernels, NCCL).
//
// Timing: the kernels' one timing loop (timing_loop.h) with one step per sample: warm-up steps,
// then `timed_steps` samples, each the maximum over ranks of one step's steady-clock time (device
// work is waited for at the end of each phase).
// Verification (real, not "it ran"): the loss on each rank's fixed batch must fall from the first
// step to the last, and every rank must hold the same parameters afterwards (the all-reduce kept
// the replicas identical).
#pragma once

#include <string>
#include <vector>

namespace shardsim::kernels {

struct CompositeConfig {
  int layers = 2;
  int hidden = 512;
  int heads = 8;
  int ffn_hidden = 2048;
  int vocab = 4096;  // a multiple of 128: the simulator's padded vocabulary is the same
  int seq_len = 256;
  int micro_batch = 1;
  int warmup_steps = 2;
  int timed_steps = 7;
};

// Where a step's time goes: steady-clock seconds of its phases, in order.
struct CompositePhases {
  double forward_backward_s = 0;  // forward and backward passes (the model's compute)
  double grad_allreduce_s = 0;    // the all-reduce of the gradients (waiting for a slower rank
                                  // included)
  double optimizer_s = 0;         // Adam over every parameter
};

struct CompositeResult {
  double step_seconds = 0;        // median of the samples
  std::vector<double> samples_s;  // one step each, maximum over ranks
  // Per phase: the median over the timed steps of the phase's maximum over ranks. The phases of
  // one step on one rank sum to its step time (the clock is read between them); medians and
  // maxima taken per phase need not sum exactly to step_seconds.
  CompositePhases phases;
  std::vector<double> losses;  // this rank's loss at every step run, in order
  double parameters = 0;       // parameter count of the model
  bool verified = false;       // loss fell on every rank and the replicas agree
  std::string verification;    // what was checked, with the numbers
};

// Parameter count: embedding V h + positions s h + per layer (2 norms of 2 h, QKV 3 h^2, out h^2,
// MLP 2 h f) + final norm 2 h + output h V.
[[nodiscard]] double composite_parameters(const CompositeConfig& c);

// Throws std::invalid_argument naming the field for a config that cannot run.
void check_composite_config(const CompositeConfig& c);

}  // namespace shardsim::kernels
