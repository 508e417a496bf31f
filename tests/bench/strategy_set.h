// The strategies a search would visit for one loaded scenario, for the per-plan benchmarks:
// tp in {1,2,4,8} x pp in {1,2,4,8,16} x ZeRO in {0,1} x micro_batch in {1,2}, keeping the
// scenario's schedule (interleaved with pp = 1 falls back to 1F1B) and dropping combinations the
// scenario checks reject. Only the strategy and the micro-batch vary; the model, training and
// cluster stay as loaded.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/scenario/scenario.h"
#include "simulator/scenario/validate.h"

namespace shardsim::bench {

struct Variant {
  Strategy strategy;
  std::int64_t micro_batch = 1;
};

inline std::vector<Variant> strategy_set(const Scenario& base) {
  std::vector<Variant> out;
  for (int tp : {1, 2, 4, 8})
    for (int pp : {1, 2, 4, 8, 16})
      for (int zero : {0, 1})
        for (std::int64_t mb : {1, 2}) {
          Scenario s = base;
          Strategy& p = s.strategy;
          p.tp = tp;
          p.pp = pp;
          p.zero = zero;
          const std::int64_t model_ranks = std::int64_t(tp) * pp * p.cp;
          if (s.cluster.gpus() % model_ranks != 0) continue;
          p.dp = int(s.cluster.gpus() / model_ranks);  // what resolve_world derives
          if (pp == 1 && p.schedule_facts().virtual_stages) {
            p.schedule = Schedule::k1F1B;
            p.vpp = 1;
          }
          s.training.micro_batch = mb;
          const StrategyCheck check = check_strategy(s);
          if (check.errors.empty() && check.infeasible.empty()) out.push_back({s.strategy, mb});
        }
  return out;
}

// Sets `s` to variant `v` (what a search changes between plans).
inline void apply(Scenario& s, const Variant& v) {
  s.strategy = v.strategy;
  s.training.micro_batch = v.micro_batch;
}

}  // namespace shardsim::bench
