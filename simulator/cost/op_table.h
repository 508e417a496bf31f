// The step's ops as the cost model prices them, one row per op: what `simulate --ops` prints, so a
// user can see which kernels a plan's compute time goes to and at what efficiency. The same
// op_cost calls, on the same context, as compute_step_costs makes for its per-kind compute.
#pragma once

#include <string>
#include <vector>

#include "simulator/cost/compute.h"
#include "simulator/plan/plan.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

struct OpCostRow {
  std::string part;  // "dense block", "MoE block" (", windowed" for a windowed layer), "embedding",
                     // "output"
  std::string name;  // the op's name (model/ops.h)
  std::string kind;  // gemm, expert_gemm, flash_attention, norm, ... (op_kind_name)
  // One micro-batch on one TP rank: forward, backward-input, backward-weight.
  OpCost pass[3];
};

[[nodiscard]] std::string op_kind_name(OpKind k);

// Every op of one block of each kind the model has (blocks of a kind cost the same), of the
// input embedding and of the output layer (final norm, logits, loss), in forward order.
// REQUIRES: `plan` is make_plan(s)'s plan for `s`.
[[nodiscard]] std::vector<OpCostRow> op_cost_rows(const Scenario& s, const Plan& plan);

}  // namespace shardsim
