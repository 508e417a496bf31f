#pragma once

// Shared by the cross-field checks of validate.cc and the placement, window and context checks of
// validate_placement.cc, validate_window.cc and validate_context.cc.

#include "simulator/scenario/scenario.h"
#include "simulator/scenario/validate.h"

namespace shardsim::validate_detail {

// Warnings for parallel groups that the model prices at one placement while they sit differently
// on the nodes: a tensor-parallel group spanning nodes, and groups of one kind (tp, cp, dp, pp)
// that cross node boundaries or hold different numbers of ranks per node.
void warn_group_placement(const Scenario& s, StrategyCheck& c);

// Warnings for what a sliding window (model.sliding_window) does not change: unfused attention
// and a kernel without a window argument compute every score, and keys that window no layer
// (validate_window.cc).
void warn_sliding_window(const Scenario& s, StrategyCheck& c);

// Errors for context parallelism that Megatron-LM and Transformer Engine refuse: a sequence not
// in 2*cp chunks, unfused attention, a sliding window on the ring, heads the all-to-all cannot
// split (validate_context.cc).
void check_context_parallel(const Scenario& s, StrategyCheck& c);

}  // namespace shardsim::validate_detail
