#include "simulator/scenario/strategy.h"

#include <array>

namespace shardsim {

const ScheduleTraits& schedule_traits(Schedule s) {
  // Fields: virtual_stages, split_weight_grad, greedy, overlapping_steps, forwards_first,
  // tight_steady_state.
  static constexpr std::array<ScheduleTraits, 5> kTraits = {{
      {false, false, false, false, true, false},  // gpipe
      {false, false, false, false, false, true},  // 1f1b
      {true, false, false, false, false, false},  // interleaved
      {false, true, false, false, false, true},   // zb-h1
      {false, true, true, true, false, false},    // zb-h2
  }};
  return kTraits[std::size_t(s)];
}

const ZeroTraits& zero_traits(int stage) {
  // Fields: shards_optimizer, shards_grads, shards_params, reduce_scatters_grads,
  // reduces_every_microbatch, gathers_params_after_step, gathers_params_per_layer.
  static constexpr std::array<ZeroTraits, 4> kTraits = {{
      {false, false, false, false, false, false, false},  // 0: DDP
      {true, false, false, true, false, true, false},     // 1
      {true, true, false, true, true, true, false},       // 2
      {true, true, true, true, true, false, true},        // 3
  }};
  return kTraits[std::size_t(stage)];
}

}  // namespace shardsim
