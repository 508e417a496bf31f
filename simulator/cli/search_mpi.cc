#include "simulator/cli/search_mpi.h"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kernels/common/comm.h"
#include "simulator/core/strings.h"

namespace shardsim::cli {
namespace {

// The launcher's environment: Open MPI's mpirun, PMI/PMIx launchers (srun, hydra).
bool under_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

// One rank's outcomes, in its enumeration order: [count][3 doubles each][each reason, '\0' after].
std::vector<char> pack(const std::vector<PlanOutcome>& all, int shard, int shards) {
  std::vector<double> numbers;
  std::string reasons;
  for (std::size_t i = std::size_t(shard); i < all.size(); i += std::size_t(shards)) {
    numbers.insert(numbers.end(),
                   {all[i].tokens_per_second, all[i].step_seconds, all[i].peak_bytes});
    reasons += all[i].reason;
    reasons += '\0';
  }
  const std::uint64_t n = numbers.size() / 3;
  std::vector<char> out(sizeof n + numbers.size() * sizeof(double) + reasons.size());
  std::memcpy(out.data(), &n, sizeof n);
  std::memcpy(out.data() + sizeof n, numbers.data(), numbers.size() * sizeof(double));
  std::memcpy(out.data() + sizeof n + numbers.size() * sizeof(double), reasons.data(),
              reasons.size());
  return out;
}

void unpack(const char* data, int shard, int shards, std::vector<PlanOutcome>& all) {
  std::uint64_t n = 0;
  std::memcpy(&n, data, sizeof n);
  const char* numbers = data + sizeof n;
  const char* reason = numbers + n * 3 * sizeof(double);
  std::size_t i = std::size_t(shard);
  for (std::uint64_t k = 0; k < n; ++k, i += std::size_t(shards)) {
    double v[3];
    std::memcpy(v, numbers + k * 3 * sizeof(double), sizeof v);
    all.at(i) = {v[0], v[1], v[2], std::string(reason)};
    reason += all[i].reason.size() + 1;
  }
}

class MpiSplit final : public SearchSplit {
 public:
  MpiSplit() : world_(kernels::Comm::world(kTimeoutS)) {}
  [[nodiscard]] int rank() const override { return world_.rank(); }
  [[nodiscard]] int size() const override { return world_.size(); }
  [[nodiscard]] const kernels::Comm& world() const { return world_; }

  [[noreturn]] void abort_job(int exit_code, const std::string& message) const override {
    // Spelled out as everything on stderr is (main.cc's TerminalSafeBuf; review, 2026-11-29).
    const std::string safe = terminal_safe(message);
    std::fprintf(stderr, "rank %d of %d: %s%s", rank(), size(), safe.c_str(),
                 safe.ends_with('\n') ? "" : "\n");
    std::fflush(stderr);
    MPI_Abort(world_.handle(), exit_code);
    std::_Exit(exit_code);  // MPI_Abort does not return; if it did, this rank still ends
  }

  // Every rank's outcomes to rank 0. First every rank learns every rank's plan count and byte
  // count (MPI_Allgather), so all of them refuse together when the ranks enumerated different
  // spaces or the bytes do not fit MPI's int counts; then MPI_Gatherv of the bytes.
  void gather(std::vector<PlanOutcome>& all) const {
    const std::vector<char> mine = pack(all, rank(), size());
    const auto n = static_cast<std::size_t>(size());
    const std::uint64_t facts[2] = {all.size(), mine.size()};
    std::vector<std::uint64_t> every(2 * n);
    kernels::check_mpi(
        MPI_Allgather(facts, 2, MPI_UINT64_T, every.data(), 2, MPI_UINT64_T, world_.handle()),
        "MPI_Allgather");
    std::uint64_t total = 0;
    for (std::size_t r = 0; r < n; ++r) {
      if (every[2 * r] != all.size())
        throw std::runtime_error("search under MPI: rank " + std::to_string(r) + " enumerated " +
                                 std::to_string(every[2 * r]) + " plans, rank " +
                                 std::to_string(rank()) + " " + std::to_string(all.size()) +
                                 " (every rank must read the same scenario and --set)");
      total += every[2 * r + 1];
    }
    if (total > std::uint64_t(std::numeric_limits<int>::max()))
      throw std::runtime_error("search under MPI: the outcomes are " + std::to_string(total) +
                               " bytes, more than one MPI gather carries (2^31 - 1); search a "
                               "smaller space");
    std::vector<int> counts(n), offsets(n);
    for (std::size_t r = 0, at = 0; r < n; ++r) {
      counts[r] = int(every[2 * r + 1]);
      offsets[r] = int(at);
      at += every[2 * r + 1];
    }
    const int bytes = int(mine.size());
    std::vector<char> received;
    if (rank() == 0) received.resize(std::size_t(total));
    kernels::check_mpi(MPI_Gatherv(mine.data(), bytes, MPI_CHAR, received.data(), counts.data(),
                                   offsets.data(), MPI_CHAR, 0, world_.handle()),
                       "MPI_Gatherv");
    if (rank() != 0) return;
    for (int r = 1; r < size(); ++r)
      unpack(received.data() + offsets[std::size_t(r)], r, size(), all);
  }

 private:
  // Comm's deadline for its own waits (unused by the blocking gather: mpirun ends the job when
  // a rank is lost, and a slow rank's share of the space may take long).
  static constexpr double kTimeoutS = 3600;
  kernels::MpiScope scope_;  // before world_: MPI is initialised first and finalised last
  kernels::Comm world_;
};

}  // namespace

std::unique_ptr<SearchSplit> split_search_over_ranks(SearchOptions& o, bool threads_given) {
  if (!under_launcher()) return nullptr;
  auto split = std::make_unique<MpiSplit>();
  if (split->size() < 2) return nullptr;
  if (!threads_given) {
    const std::vector<int> node = split->world().node_of_rank();
    const auto on_my_node = std::count(node.begin(), node.end(), node[std::size_t(split->rank())]);
    const int cores = std::max(1, int(std::thread::hardware_concurrency()));
    o.threads = std::max(1, cores / int(on_my_node));
  }
  o.shard = split->rank();
  o.shards = split->size();
  o.finish = split->rank() == 0;
  const MpiSplit* s = split.get();
  o.gather = [s](std::vector<PlanOutcome>& all) { s->gather(all); };
  return split;
}

}  // namespace shardsim::cli
