// Wall time of the calibration loop as a user runs it, under `mpirun -np 2` (the target:
// `mpirun -np 2 shardsim calibrate --backend cpu --quick -o p.json` under a minute on a 2-core
// CI machine). Each iteration is one full run of the command (sweep + fit); manual time is its
// wall clock. The MPI tests check the same runs' output; the target is checked here, because a
// unit test cannot pick a quiet machine (tests/common/process_util.h, strict_timing). Run:
//   ./build/tests/bench/calibrate_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "tests/common/process_util.h"

namespace {

namespace fs = std::filesystem;

void run_timed(benchmark::State& state, const std::string& subcommand) {
  const fs::path dir =
      fs::temp_directory_path() / ("shardsim_calibrate_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string cmd = shardsim::test_util::mpirun(SHARDSIM_MPIEXEC, 2) + SHARDSIM_BINARY + " " +
                          subcommand + " -o " + (dir / "out.json").string() + " 2>" +
                          (dir / "log.txt").string();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const int rc = shardsim::test_util::run(cmd);
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (rc != 0) {
      state.SkipWithError(("exit " + std::to_string(rc) + ": " + cmd).c_str());
      break;
    }
  }
  fs::remove_all(dir);
}

// Target: under 60 s on 2 cores.
void BM_calibrate_cpu_quick_mpirun2(benchmark::State& state) {
  run_timed(state, "calibrate --backend cpu --quick");
}
BENCHMARK(BM_calibrate_cpu_quick_mpirun2)->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
