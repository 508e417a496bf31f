// The parallel strategy of a training run: how the model is split over GPUs (degrees, sequence
// parallelism, ZeRO stage, offload), how the pipeline is scheduled, which communication overlaps,
// and what is recomputed. A plain value: search and compare vary it over a fixed model and cluster.
// Facts that follow from a schedule or a ZeRO stage live in plan/schedule.h and plan/zero.h, not
// here and not in their users.
#pragma once

#include <string>

namespace shardsim {

enum class Recompute { kNone, kSelective, kFull };
enum class Schedule { kGpipe, k1F1B, kInterleaved, kZbH1, kZbH2 };

struct Strategy {
  int tp = 1;       // tensor parallel
  int pp = 1;       // pipeline stages
  int vpp = 1;      // virtual stages (model chunks) per pipeline rank; > 1 needs "interleaved"
  int cp = 1;       // context parallel
  int ep = 1;       // expert parallel (experts sharded over EP ranks carved out of DP x CP)
  int dp = 0;       // data parallel; 0 in the file means "derived from the GPU count"
  bool sp = false;  // sequence parallel (needs tp > 1 to matter)
  int zero = 0;     // ZeRO stage 0..3 over the data-parallel (x context-parallel) group
  bool offload_optimizer = false;  // optimizer states (and FP32 gradients) in host memory
  bool offload_params = false;     // parameters in host memory (ZeRO-3 only)
  Schedule schedule = Schedule::k1F1B;
  Recompute recompute = Recompute::kNone;  // scenario key training.recompute
  bool overlap_grad_reduce = true;
  bool overlap_param_gather = true;
  bool overlap_tp_comm = false;  // TP/SP collectives overlapped with the adjacent GEMMs
  // Order of the parallel dimensions in the global rank, innermost first ("tp-cp-dp-pp"):
  // decides which groups share a node. EP groups are carved from DP.
  std::string rank_order = "tp-cp-dp-pp";
  int first_stage_layers = -1;  // -1: automatic (Megatron-style uneven split when needed)
  int last_stage_layers = -1;
};

// Scenario names of the enumerations ("1f1b", "selective").
[[nodiscard]] std::string schedule_name(Schedule s);
[[nodiscard]] std::string recompute_name(Recompute r);

}  // namespace shardsim
