// The parallel strategy of a training run: how the model is split over GPUs (degrees, sequence
// parallelism, ZeRO stage, offload), how the pipeline is scheduled, which communication overlaps,
// and what is recomputed. A plain value: search and compare vary it over a fixed model and cluster.
// Facts that follow from a schedule or a ZeRO stage are the trait tables below (ScheduleTraits,
// ZeroTraits); counts that depend on the stage and micro-batches are in plan/schedule.h.
#pragma once

#include <string>

namespace shardsim {

enum class Recompute { kNone, kSelective, kFull };
enum class Schedule { kGpipe, k1F1B, kInterleaved, kZbH1, kZbH2 };
// How context-parallel attention exchanges the sequence (Megatron-LM's --cp-comm-type, run by
// Transformer Engine): a ring of K/V point-to-point steps overlapped with the attention (p2p),
// an exposed all-gather of K and V (all_gather; the backward reduce-scatters dK and dV), or
// all-to-alls that give each rank the whole sequence for heads / cp heads (a2a, DeepSpeed
// Ulysses' layout).
enum class CpComm { kP2p, kAllGather, kA2a };
inline constexpr int kRecomputeCount = 3;
inline constexpr int kScheduleCount = 5;
inline constexpr int kZeroStages = 4;  // 0..3

// Largest parallel degree a scenario may give (tp, pp, vpp, cp, ep, and dp when given); a dp
// derived from the GPU count may reach the GPU limit of validate.cc (2^24).
inline constexpr int kMaxParallelDegree = 1 << 20;

// What a pipeline schedule is, defined once; every layer asks these instead of testing the enum.
// Sources: Narayanan et al. 2021 §2.2 (GPipe, 1F1B, interleaved); Qi et al. 2024 (ZB-H1, ZB-H2).
// Counts that depend on the stage and micro-batches (in-flight limits, programs) are in
// plan/schedule.h.
struct ScheduleTraits {
  // Model chunks per rank (vpp > 1) are allowed, and only here (interleaved 1F1B).
  bool virtual_stages = false;
  // The backward pass is split into input-gradient (B) and weight-gradient (W) passes, W deferred
  // (zero-bubble schedules); otherwise W runs inside B.
  bool split_weight_grad = false;
  // No fixed per-stage program: work is picked greedily under in-flight caps (ZB-H2).
  bool greedy = false;
  // Consecutive steps overlap (Qi et al.'s optimizer post-validation removes the step-boundary
  // synchronisation): a stage's step is its span from its first task, not from time zero.
  bool overlapping_steps = false;
  // Every forward runs before any backward (GPipe): all m micro-batches are live at once.
  bool forwards_first = false;
  // Steady state alternates one forward and one backward with no slack (1F1B, ZB-H1), so the
  // pipeline transfer's round trip stays on the critical path.
  bool tight_steady_state = false;
};
[[nodiscard]] const ScheduleTraits& schedule_traits(Schedule s);

// What a ZeRO stage shards over the data-parallel group and which collectives it adds, defined
// once (Rajbhandari et al. 2020: stage 1 optimizer states, 2 also gradients, 3 also parameters).
struct ZeroTraits {
  bool shards_optimizer = false;
  bool shards_grads = false;
  bool shards_params = false;
  // Gradients are reduce-scattered to their shard owners (ZeRO >= 1) instead of all-reduced.
  bool reduce_scatters_grads = false;
  // Sharded gradients cannot accumulate across micro-batches: reduced after every micro-batch.
  bool reduces_every_microbatch = false;
  // Updated parameter shards are all-gathered once after the optimizer step (ZeRO-1/2).
  bool gathers_params_after_step = false;
  // Each layer's parameters are all-gathered before its forward and its backward, every
  // micro-batch, and freed after (ZeRO-3 / FSDP FULL_SHARD).
  bool gathers_params_per_layer = false;
};
// REQUIRES: 0 <= stage <= 3 (the scenario reader enforces it).
[[nodiscard]] const ZeroTraits& zero_traits(int stage);

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
  // ZeRO-3: units (blocks, embedding, output layer) whose parameter gathers are issued ahead of
  // the compute. 1: FSDP's default (BACKWARD_PRE, rate-limited to one unit ahead); 0: on demand
  // (FSDP backward_prefetch=None), each gather queued behind the previous unit's reduce-scatter.
  int zero3_prefetch = 1;
  CpComm cp_comm = CpComm::kP2p;  // scenario key parallel.cp_comm_type
  // Order of the parallel dimensions in the global rank, innermost first ("tp-cp-dp-pp"):
  // decides which groups share a node. EP groups are carved from DP.
  std::string rank_order = "tp-cp-dp-pp";
  int first_stage_layers = -1;  // -1: automatic (Megatron-style uneven split when needed)
  int last_stage_layers = -1;

  [[nodiscard]] const ScheduleTraits& schedule_facts() const { return schedule_traits(schedule); }
  [[nodiscard]] const ZeroTraits& zero_facts() const { return zero_traits(zero); }
};

// Scenario names of the enumerations ("1f1b", "selective").
[[nodiscard]] std::string schedule_name(Schedule s);
[[nodiscard]] std::string recompute_name(Recompute r);
[[nodiscard]] std::string cp_comm_name(CpComm c);

}  // namespace shardsim
