// Entry point of `shardsim calibrate`: runs every kernel descriptor of a backend's sweep through
// the one timing loop and produces the samples document (kernels/common/results.h,
// reports/schemas/calibration-samples.schema.json).
//
// One rank per GPU (or per CPU process), launched by mpirun or srun; a plain launch is a world of
// one rank. Every rank runs the same descriptor sequence in lockstep; rank 0 writes the files.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kernels/common/backend.h"
#include "kernels/common/comm.h"
#include "kernels/common/results.h"
#include "kernels/common/sweep_plan.h"

namespace shardsim::kernels {

struct SweepOptions {
  BackendKind backend = BackendKind::kCpu;
  bool quick = false;  // the short sweep: CPU --quick with 2 ranks on 2 cores takes ~10-30 s
  // Where rank 0 writes the samples document; "" writes nothing. While the sweep runs,
  // `<samples_path>.partial` holds what was measured so far (written before the first item and
  // rewritten after every item); it is removed after a complete run and kept after a failure, so
  // a later `fit` can read the samples already measured. Its `error` is set when rank 0 failed;
  // every rank that fails also writes `<samples_path>.rank<N>.error` (JSON: call, message, item,
  // rank) before aborting, since MPI_Abort may end rank 0 before it learns another rank's error
  // (each rank removes its own stale error file when it starts).
  std::string samples_path;
  // Only descriptors whose name contains this string (e.g. "gemm/", "collective/"); "" = all.
  std::string name_filter;
  // Deadline of every cross-rank wait (barrier, max over ranks): a lost or stuck rank turns into
  // a CallError after this long instead of a hang. Default: 120 s.
  double sync_timeout_s = 120.0;
  // Rank 0 prints one line per measured item on `log` (name, median, spread, throughput). Off:
  // only failed verifications, errors and where the files went. `shardsim calibrate` turns it on
  // when someone watches (a terminal) or with --verbose.
  bool item_lines = true;
};

// Why calibration refuses to run from this build type ("Debug": timings of unoptimised code would
// be fitted into a hardware profile), or std::nullopt when it may run.
[[nodiscard]] std::optional<std::string> build_type_refusal(std::string_view build_type);

// The BuildInfo of this binary (compile definitions set by kernels/sweep/CMakeLists.txt).
[[nodiscard]] BuildInfo this_build();

// The backend of `kind` over `world` (collective), or nullptr with `error` set: for cuda, each
// rank loads the backend module and selects the device of its index on its node, and when any
// rank cannot, every rank gets nullptr with one failing rank's reason: the lowest rank whose
// module did not load ("CUDA backend unavailable: cannot load ...", kernels/sweep/cuda_module.h),
// else the lowest failing rank ("no CUDA device ..."), prefixed "rank N: " on the other ranks.
// So all fail the same way, at once, without a hang. A build
// without CUDA: "no CUDA device: this shardsim was built without CUDA ...".
[[nodiscard]] std::unique_ptr<Backend> make_backend(BackendKind kind, const Comm& world,
                                                    std::string& error);

// Runs the sweep and fills `samples_out` with the samples document (on every rank).
// Returns the CLI exit code (DESIGN.md):
//   0 every item measured and verified;
//   1 every item measured but some failed verification (`verified: false` in the document);
//   2 refused: a Debug build, or invalid options (message names the option);
//   3 runtime failure: no CUDA device, a shardsim built without CUDA, a CUDA backend module that
//     cannot be loaded, or a failed MPI / BLAS / CUDA / cuBLAS / NCCL call or cross-rank
//     deadline; the message names the call, and
//     `samples_out` (and the .partial file) keeps the items measured before it, with `error` set
//     on the failing rank; the failing rank's `.rank<N>.error` file names the call (see above).
// MPI: initialised here unless the caller already did (then the caller finalises it). When this
// function initialised MPI, the world has more than one rank and a runtime failure occurred after
// the ranks agreed to start, it writes the partial samples and the error, then calls
// MPI_Abort(MPI_COMM_WORLD, 3), which ends every rank (mpirun exits 3) rather than risk
// MPI_Finalize waiting for a lost rank; it does not return in that case.
// A lost rank (measured with Open MPI 4.1.4; kernels/sweep/rank_signals.h,
// tests/cli/calibrate_lost_rank_test.cc):
//  - killed (SIGKILL: OOM killer, `kill -9`): mpirun ends the job at once and exits 137 (128 + 9,
//    the lost rank's status; no mpirun flag turns that into 3). It sends the survivors SIGTERM and
//    SIGKILL 1 s later; in that second a survivor's wait throws ("MPI_Ibarrier failed:
//    interrupted by SIGTERM ..."), the message names the ranks on its host whose process is gone
//    ("rank 1 lost during MPI_Ibarrier: ..."), and rank 0 writes it into the .partial file
//    (`error.lost_ranks`) next to the items measured before.
//  - crashed (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT): the rank writes its .rank<N>.error
//    (call: the signal, item) and exits 3, so mpirun exits 3.
//  - `mpirun --enable-recovery` keeps the survivors running until their next cross-rank wait
//    passes sync_timeout_s; they then report and abort as above, but mpirun exits 0: read
//    `complete` and `error` in the file rather than trusting mpirun's status there.
// Progress and errors go to `log` (progress from rank 0 only; errors from every rank).
[[nodiscard]] int run_calibration_sweep(const SweepOptions& options, std::ostream& log,
                                        nlohmann::json& samples_out);

}  // namespace shardsim::kernels
