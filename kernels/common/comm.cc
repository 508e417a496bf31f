#include "kernels/common/comm.h"

#include <chrono>
#include <csignal>
#include <thread>

#include "kernels/common/errors.h"

namespace shardsim::kernels {

namespace {
volatile std::sig_atomic_t g_termination_signal = 0;
// What the functions below read and write: this copy's variable, or, in the CUDA backend module
// (which links its own copy of this file), the host's (share_termination_signal).
volatile std::sig_atomic_t* g_signal_slot = &g_termination_signal;
}  // namespace

int termination_signal() {
  return *g_signal_slot;
}
void note_termination_signal(int signal) {
  *g_signal_slot = signal;
}
void clear_termination_signal() {
  *g_signal_slot = 0;
}
volatile std::sig_atomic_t* termination_signal_slot() {
  return g_signal_slot;
}
void share_termination_signal(volatile std::sig_atomic_t* slot) {
  g_signal_slot = slot != nullptr ? slot : &g_termination_signal;
}

const char* signal_name(int signal) {
  switch (signal) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    case SIGKILL:
      return "SIGKILL";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    default:
      return "a signal";
  }
}

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) {
    throw CallError(call, "MPI error code " + std::to_string(rc));
  }
  throw CallError(call, std::string(text, static_cast<std::size_t>(len)));
}

Comm::Comm(MPI_Comm comm, bool owned, double timeout_s)
    : comm_(comm), owned_(owned), timeout_s_(timeout_s) {
  check_mpi(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

Comm Comm::world(double timeout_s) {
  return Comm(MPI_COMM_WORLD, false, timeout_s);
}

Comm::Comm(Comm&& other) noexcept
    : comm_(other.comm_),
      owned_(other.owned_),
      timeout_s_(other.timeout_s_),
      rank_(other.rank_),
      size_(other.size_) {
  other.owned_ = false;
}

Comm::~Comm() {
  if (owned_) MPI_Comm_free(&comm_);  // a failure here cannot be reported from a destructor
}

// Polls `request` until it completes or the deadline passes. Busy-polls for the first 10 ms (so
// ranks leave a barrier close together, which collective timings depend on), then sleeps 100 us
// between polls so a waiting rank does not steal the core of a rank still computing.
void Comm::wait(MPI_Request& request, const char* call) const {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(timeout_s_);
  for (;;) {
    if (const int signal = termination_signal(); signal != 0) {
      throw CallError(call, std::string("interrupted by ") + signal_name(signal) +
                                " (the launcher is ending the job: another rank was lost or "
                                "failed, or the job was cancelled)");
    }
    int done = 0;
    check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), call);
    if (done != 0) return;
    const auto now = Clock::now();
    if (now > deadline) {
      throw CallError(call, "no answer from every rank within " + std::to_string(timeout_s_) +
                                " s (a rank was lost or is stuck)");
    }
    if (now - start > std::chrono::milliseconds(10)) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
}

void Comm::barrier() const {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibarrier(comm_, &request), "MPI_Ibarrier");
  wait(request, "MPI_Ibarrier");
}

double Comm::max(double value) const {
  double out = value;
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, comm_, &request),
            "MPI_Iallreduce");
  wait(request, "MPI_Iallreduce");
  return out;
}

bool Comm::all(bool value) const {
  return count(value) == size_;
}

int Comm::count(bool value) const {
  int in = value ? 1 : 0;
  int out = in;
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm_, &request), "MPI_Iallreduce");
  wait(request, "MPI_Iallreduce");
  return out;
}

std::string Comm::broadcast(const std::string& text, int root) const {
  // The length first, then the characters: both deadline-bounded like the other syncs.
  unsigned long long length = rank_ == root ? text.size() : 0;
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, comm_, &request), "MPI_Ibcast");
  wait(request, "MPI_Ibcast");
  std::string out = rank_ == root ? text : std::string(static_cast<std::size_t>(length), '\0');
  if (length == 0) return out;
  check_mpi(MPI_Ibcast(out.data(), static_cast<int>(length), MPI_CHAR, root, comm_, &request),
            "MPI_Ibcast");
  wait(request, "MPI_Ibcast");
  return out;
}

std::optional<Comm> Comm::split(int color, int key) const {
  MPI_Comm out = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(comm_, color, key, &out), "MPI_Comm_split");
  if (out == MPI_COMM_NULL) return std::nullopt;
  return Comm(out, true, timeout_s_);
}

std::vector<int> Comm::node_of_rank() const {
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  const Comm local(node, true, timeout_s_);
  int world_rank = 0;
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank), "MPI_Comm_rank");
  // The node's id is its lowest world rank: the world rank of local rank 0.
  int node_id = world_rank;
  check_mpi(MPI_Bcast(&node_id, 1, MPI_INT, 0, local.handle()), "MPI_Bcast");
  std::vector<int> out(static_cast<std::size_t>(size_));
  check_mpi(MPI_Allgather(&node_id, 1, MPI_INT, out.data(), 1, MPI_INT, comm_), "MPI_Allgather");
  return out;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  check_mpi(MPI_Get_library_version(text, &len), "MPI_Get_library_version");
  std::string s(text, static_cast<std::size_t>(len));
  const auto eol = s.find_first_of(std::string("\r\n\0", 3));  // len may count the NUL
  return eol == std::string::npos ? s : s.substr(0, eol);
}

std::string mpi_standard_version() {
  int major = 0;
  int minor = 0;
  check_mpi(MPI_Get_version(&major, &minor), "MPI_Get_version");
  return std::to_string(major) + "." + std::to_string(minor);
}

MpiScope::MpiScope() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized != 0) return;
  int provided = 0;
  check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  owned_ = true;
}

MpiScope::~MpiScope() {
  if (owned_) MPI_Finalize();
}

}  // namespace shardsim::kernels
