// Seconds split by what they were spent on. The categories are the report's time.breakdown keys;
// exposed times in every category sum to the step time.
#pragma once

#include <array>
#include <string>

namespace shardsim {

enum class TimeCategory : int {
  kCompute,       // model math (GEMMs, attention, memory-bound ops)
  kRecompute,     // forward work repeated in the backward pass
  kTpComm,        // tensor/sequence-parallel collectives not hidden behind compute
  kCpComm,        // context-parallel exchange (parallel.cp_comm_type) not hidden behind attention
  kEpComm,        // expert-parallel dispatch/combine all-to-all
  kDpComm,        // data-parallel gradient reduction and ZeRO gathers not hidden
  kPpComm,        // pipeline send/recv a stage waited for
  kBubble,        // pipeline idle time
  kOptimizer,     // optimizer step (GPU or host)
  kOffload,       // host<->device copies not hidden
  kHostDispatch,  // the GPU waiting for the host (framework) to issue its work
};
inline constexpr int kTimeCategoryCount = 11;

[[nodiscard]] std::string time_category_key(TimeCategory c);

struct TimeSplit {
  std::array<double, kTimeCategoryCount> seconds{};

  [[nodiscard]] double total() const {
    double t = 0;
    for (double s : seconds) t += s;
    return t;
  }
  [[nodiscard]] double operator[](TimeCategory c) const { return seconds[std::size_t(c)]; }
  void add(TimeCategory c, double s) { seconds[std::size_t(c)] += s; }
  TimeSplit& operator+=(const TimeSplit& o) {
    for (std::size_t i = 0; i < seconds.size(); ++i) seconds[i] += o.seconds[i];
    return *this;
  }
  [[nodiscard]] TimeSplit scaled(double k) const {
    TimeSplit r = *this;
    for (double& s : r.seconds) s *= k;
    return r;
  }
};

inline std::string time_category_key(TimeCategory c) {
  static constexpr std::array<const char*, kTimeCategoryCount> kKeys = {
      "compute", "recompute", "tp_comm",   "cp_comm", "ep_comm",      "dp_comm",
      "pp_comm", "bubble",    "optimizer", "offload", "host_dispatch"};
  return kKeys[std::size_t(c)];
}

}  // namespace shardsim
