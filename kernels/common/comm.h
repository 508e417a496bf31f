// MPI communicator wrapper for the calibration harness. Every MPI call is checked (the
// communicator uses MPI_ERRORS_RETURN, so a failure returns here and becomes a CallError naming
// the call instead of aborting inside the library). The synchronisation the timing loop needs
// (barrier, max, all) uses non-blocking MPI and gives up after `timeout_s`, so a lost or stuck
// rank turns into a CallError ("MPI_Ibarrier failed: no answer from every rank within 60 s")
// rather than a hang.
#pragma once

#include <mpi.h>

#include <csignal>
#include <optional>
#include <string>
#include <vector>

namespace shardsim::kernels {

// Throws CallError(call, MPI_Error_string(rc)) unless rc == MPI_SUCCESS.
void check_mpi(int rc, const char* call);

// Initialises MPI when nobody has; finalises what it initialised (run_sweep.h says how failures
// abort instead). A launch without mpirun is a world of one rank.
class MpiScope {
 public:
  MpiScope();
  MpiScope(const MpiScope&) = delete;
  MpiScope& operator=(const MpiScope&) = delete;
  ~MpiScope();
  [[nodiscard]] bool owned() const { return owned_; }

 private:
  bool owned_ = false;
};

class Comm {
 public:
  // Wraps MPI_COMM_WORLD (not owned) and sets MPI_ERRORS_RETURN on it.
  // REQUIRES: MPI is initialized.
  [[nodiscard]] static Comm world(double timeout_s);

  Comm(Comm&& other) noexcept;
  Comm& operator=(Comm&&) = delete;
  Comm(const Comm&) = delete;
  ~Comm();  // MPI_Comm_free for communicators this object created

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  [[nodiscard]] MPI_Comm handle() const { return comm_; }
  [[nodiscard]] double timeout_s() const { return timeout_s_; }

  // Deadline-bounded synchronisation (see the file comment).
  void barrier() const;
  [[nodiscard]] double max(double value) const;  // maximum over ranks
  [[nodiscard]] bool all(bool value) const;      // logical and over ranks
  [[nodiscard]] int count(bool value) const;     // the number of ranks passing true
  // `root`'s `text` on every rank (the others' `text` is ignored). REQUIRES: 0 <= root < size().
  [[nodiscard]] std::string broadcast(const std::string& text, int root) const;

  // MPI_Comm_split; std::nullopt for ranks passing color == MPI_UNDEFINED.
  [[nodiscard]] std::optional<Comm> split(int color, int key) const;

  // Node of every rank of this communicator: the lowest world rank on the same shared-memory node
  // (MPI_Comm_split_type MPI_COMM_TYPE_SHARED), indexed by rank in this communicator.
  [[nodiscard]] std::vector<int> node_of_rank() const;

 private:
  Comm(MPI_Comm comm, bool owned, double timeout_s);
  void wait(MPI_Request& request, const char* call) const;

  MPI_Comm comm_;
  bool owned_;
  double timeout_s_;
  int rank_ = 0;
  int size_ = 1;
};

// The signal that asked this process to stop (SIGTERM from a launcher ending the job because
// another rank was lost or failed, SIGINT from a cancelled run), or 0. Recorded from a signal
// handler (kernels/sweep/rank_signals.h); every deadline-bounded wait checks it first and throws
// CallError(call, "interrupted by SIGTERM ...") so the failure is reported and the samples are
// kept before the launcher's SIGKILL (Open MPI 4.1 sends it 1 s after SIGTERM).
[[nodiscard]] int termination_signal();
void note_termination_signal(int signal);  // async-signal-safe
void clear_termination_signal();
// The variable the three functions above use. The CUDA backend module (kernels/cuda/module.cc)
// links its own copy of this file; the host hands it termination_signal_slot() when loading it,
// and the module's share_termination_signal() makes its copy use the host's variable, so the
// module's waits see a signal the host's handler recorded. Called once, when the module is loaded
// (nullptr: back to this copy's own variable).
[[nodiscard]] volatile std::sig_atomic_t* termination_signal_slot();
void share_termination_signal(volatile std::sig_atomic_t* slot);
// "SIGTERM", "SIGSEGV", ... for the signals the harness handles; "a signal" for others.
// Async-signal-safe (returns a literal).
[[nodiscard]] const char* signal_name(int signal);

// "Open MPI v4.1.4, package: ..." (first line of MPI_Get_library_version) and "3.1".
[[nodiscard]] std::string mpi_library_version();
[[nodiscard]] std::string mpi_standard_version();

}  // namespace shardsim::kernels
