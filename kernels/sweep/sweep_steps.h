// The steps of run_calibration_sweep after MPI is up: agree on a backend, measure every
// descriptor, keep the samples document (and its .partial file) current, and turn a failure into
// exit code 3 with the failing call named. Internal to kernels/sweep.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/common/backend.h"
#include "kernels/common/comm.h"
#include "kernels/common/results.h"
#include "kernels/sweep/rank_signals.h"
#include "kernels/sweep/run_sweep.h"

namespace shardsim::kernels {

class SweepRun {
 public:
  // Returns the backend, or nullptr with `error` set (the same decision on every rank).
  using BackendFactory = std::function<std::unique_ptr<Backend>(const Comm&, std::string& error)>;

  // `abort_on_failure`: after a runtime failure in a multi-rank world, call
  // MPI_Abort(MPI_COMM_WORLD, 3) once the error and samples are written (run_sweep.h).
  SweepRun(const SweepOptions& options, std::ostream& log, nlohmann::json& out,
           bool abort_on_failure);

  // Exit code as documented for run_calibration_sweep.
  [[nodiscard]] int execute(const BuildInfo& build, const BackendFactory& make_backend);

 private:
  void measure_all(Backend& backend, const Comm& world);
  void log_item(std::size_t index, std::size_t count, const nlohmann::json& item);
  int fail(const Comm* world, const std::string& call, const std::string& message);
  void publish(bool complete);

  const SweepOptions& options_;
  std::ostream& log_;
  nlohmann::json& out_;
  bool abort_on_failure_;
  bool rank0_ = true;
  nlohmann::json context_ = nlohmann::json::object();
  nlohmann::json items_ = nlohmann::json::array();
  nlohmann::json error_ = nullptr;
  std::string current_item_;
  std::vector<Peer> peers_;  // every rank's host and pid, to name a lost rank
};

}  // namespace shardsim::kernels
