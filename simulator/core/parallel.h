// A small work-sharing loop for the commands that evaluate many independent plans (compare's
// variants, search's plans): threads take the next index from a shared counter, so the result
// (written per index by the body) is the same for any thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace shardsim {

// The number of workers parallel_for uses for n items and a requested thread count: in [1, n]
// (1 when n is 0). Callers size per-worker state (caches, scratch scenarios) with it.
[[nodiscard]] inline int worker_count(std::size_t n, int threads) {
  return int(std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(std::max(1, threads)), n)));
}

// Runs body(i, worker) for every i in [0, n) on worker_count(n, threads) workers; worker 0 is the
// calling thread. The first exception a body throws (std::bad_alloc, a logic_error from a bug)
// stops every worker from taking another index and is rethrown here once all threads have
// joined; without this, an exception escaping a std::thread would terminate the process.
template <class Body>
void parallel_for(std::size_t n, int threads, Body&& body) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first;
  std::mutex first_mutex;
  auto work = [&](int worker) {
    try {
      for (std::size_t i; !failed.load() && (i = next.fetch_add(1)) < n;) body(i, worker);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(first_mutex);
      if (!first) first = std::current_exception();
      failed.store(true);
    }
  };
  const int t = worker_count(n, threads);
  std::vector<std::thread> pool;
  pool.reserve(std::size_t(t - 1));
  try {
    for (int k = 1; k < t; ++k) pool.emplace_back(work, k);
  } catch (...) {  // a thread could not start: stop and join the started ones
    failed.store(true);
    for (auto& th : pool) th.join();
    throw;
  }
  work(0);
  for (auto& th : pool) th.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace shardsim
