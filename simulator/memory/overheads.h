// Runtime memory beyond model states and activations: each a named, documented, configurable
// term (scenario section "overheads"; defaults in scenario.h's OverheadConfig).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "simulator/plan/plan.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

struct OverheadTerm {
  std::string_view name;  // a string literal
  double bytes = 0;
  std::string note;  // empty unless notes were asked for
};

// At most the eight terms listed below, in that order, held in place (no allocation).
struct OverheadTerms {
  std::array<OverheadTerm, 8> items;
  std::size_t count = 0;
  [[nodiscard]] const OverheadTerm* begin() const { return items.data(); }
  [[nodiscard]] const OverheadTerm* end() const { return items.data() + count; }
};

struct RankFootprint {
  double local_params = 0;    // parameter elements on the rank (before ZeRO sharding)
  double largest_layer = 0;   // largest ZeRO-3 gather unit (block, embedding, output) on the rank
  double largest_window = 0;  // largest sum of zero3_prefetch + 1 consecutive units (plan_facts.h)
  double activations = 0;     // activation bytes (fragmentation applies to these)
  bool moe_layers = false;    // the rank holds MoE blocks (dispatch buffers)
};

// Terms: cuda_context, gemm_workspace, nccl (one buffer set per communicator of size > 1: TP,
// CP, DP x CP, EP, PP), ddp_bucket (ZeRO-0 with DP > 1), zero_buckets (ZeRO-1/2: DeepSpeed's
// reduce and all-gather buckets, capped at the rank's parameters), zero3_buffers (ZeRO-3 with
// DP > 1: the largest unit gathered plus what is prefetched, at most the rank's other units, and
// its gradient reduce-scatter buffer),
// moe_dispatch (EP > 1: all-to-all send and receive buffers of one micro-batch's routed tokens),
// cp_exchange (CP > 1: the buffers of one layer's exchange by parallel.cp_comm_type),
// fragmentation (fraction of activations). `notes`: also write each term's note
// (reports).
[[nodiscard]] OverheadTerms overhead_terms(const Scenario& s, const Plan& plan,
                                           const RankFootprint& f, bool notes = true);

// Communicators of size > 1 a rank belongs to.
[[nodiscard]] int communicator_count(const Plan& plan);

}  // namespace shardsim
