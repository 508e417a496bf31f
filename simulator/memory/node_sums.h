// The busiest node's share of per-stage values (host memory under offload): a pure function of
// the rank layout, in time independent of the GPU count.
#pragma once

#include <vector>

namespace shardsim {

// Rank r holds values[(r / block) % values.size()] (its pipeline stage: blocks of `block`
// consecutive ranks, stage after stage); node n holds ranks [n * window, (n + 1) * window).
// Returns the largest node sum over nodes 0 .. nodes - 1. The sum of a node depends only on
// where it starts in the layout's period (block x stages), so the maximum is taken at the
// starts next to the points where a node's first or last rank crosses into another block:
// O(stages x (window / block + 2)) work, not O(nodes x window) (found by review, 2026-11-28:
// `search` on a million GPUs spent 94 % of its time here, looping over every rank).
// REQUIRES: block, window, nodes >= 1; values not empty.
[[nodiscard]] double busiest_node_sum(const std::vector<double>& values, long long block,
                                      long long window, long long nodes);

}  // namespace shardsim
