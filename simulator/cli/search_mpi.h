// `mpirun -np N shardsim search`: the plan space split over MPI ranks. Each rank runs the
// analytic pass over every N-th plan on its share of the node's cores; rank 0 gathers every
// plan's outcome, ranks them, re-ranks the top K with the discrete-event simulation and writes
// the report. The ranking, and the JSON, are the same as one process's (tested).
#pragma once

#include <memory>
#include <string>

#include "simulator/evaluate/search.h"

namespace shardsim::cli {

// Holds MPI open for the search (MPI_Init on creation, MPI_Finalize on destruction).
class SearchSplit {
 public:
  virtual ~SearchSplit() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  // A failure on this rank (bad input, an exhausted resource) ends the whole job: `message` to
  // stderr prefixed with the rank, then MPI_Abort with `exit_code`. Without it, this rank would
  // finalise MPI while the others wait in the gather, and the job would hang.
  [[noreturn]] virtual void abort_job(int exit_code, const std::string& message) const = 0;
};

// Under an MPI launcher (Open MPI, PMI/PMIx) with more than one rank: sets o.shard, o.shards,
// o.gather and o.finish (rank 0 only), and, unless `threads_given`, o.threads to the node's
// cores divided by the ranks on the node. nullptr (and `o` untouched) otherwise.
// MPI failures throw kernels::CallError naming the call.
[[nodiscard]] std::unique_ptr<SearchSplit> split_search_over_ranks(SearchOptions& o,
                                                                   bool threads_given);

}  // namespace shardsim::cli
