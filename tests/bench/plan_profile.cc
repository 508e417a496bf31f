// Repeatable instruction counts of evaluate() in analytic mode (plan, memory numbers, step
// costs, analytic step, throughput) over bench::strategy_set, for callgrind:
//   valgrind --tool=callgrind --toggle-collect='*run_rounds*'
//     ./build/tests/bench/plan_profile gpt3-175b-1536xa100 10 [cached]  (one line)
// Ir of run_rounds / (rounds x strategies) is the instruction count per plan. "cached": one
// EvaluateCache held across every round, as a search holds it.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "simulator/evaluate/evaluate.h"
#include "simulator/scenario/load.h"
#include "tests/bench/strategy_set.h"

namespace shardsim::bench {

// Not inlined, so that callgrind can collect exactly this function.
[[gnu::noinline]] double run_rounds(Scenario& s, const std::vector<Variant>& variants, int rounds,
                                    EvaluateCache* cache) {
  EvaluateOptions options{Mode::kAnalytic, false, MemoryDetail::kNumbers};
  options.cache = cache;
  double sink = 0;
  for (int r = 0; r < rounds; ++r) {
    for (const auto& v : variants) {
      apply(s, v);
      const Expected<Estimate> e = evaluate(s, options);
      sink += e->memory->peak_bytes + e->time->throughput.mfu;
    }
  }
  return sink;
}

}  // namespace shardsim::bench

int main(int argc, char** argv) {
  using namespace shardsim;
  Scenario s = load_scenario(argc > 1 ? argv[1] : "gpt3-175b-1536xa100");
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 10;
  const auto variants = bench::strategy_set(s);
  EvaluateCache cache;
  const bool cached = argc > 3 && std::string_view(argv[3]) == "cached";
  const double sink = bench::run_rounds(s, variants, rounds, cached ? &cache : nullptr);
  std::printf("%zu strategies x %d rounds = %zu plans (checksum %.6g)\n", variants.size(), rounds,
              variants.size() * std::size_t(rounds), sink);
}
