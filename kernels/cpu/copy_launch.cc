// memcpy bandwidth and the cost of dispatching an empty task (the host-side floor of a
// framework's per-operator dispatch, the cpu analogue of a kernel launch).
#include <cstring>
#include <functional>

#include "kernels/common/hash.h"
#include "kernels/cpu/descriptors.h"

namespace shardsim::kernels::cpu {
namespace {

class MemcpyInstance final : public Instance {
 public:
  explicit MemcpyInstance(std::int64_t bytes)
      : src_(static_cast<std::size_t>(bytes)), dst_(static_cast<std::size_t>(bytes)) {
    for (std::size_t i = 0; i < src_.size(); ++i) {
      src_[i] = static_cast<unsigned char>(mix64(i) & 0xffu);
    }
  }
  void run(int times) override {
    for (int t = 0; t < times; ++t) std::memcpy(dst_.data(), src_.data(), src_.size());
  }
  Verification verify() override {
    const bool ok = std::memcmp(dst_.data(), src_.data(), src_.size()) == 0;
    return {ok, ok ? "destination equals source" : "destination differs from source"};
  }

 private:
  std::vector<unsigned char> src_;
  std::vector<unsigned char> dst_;
};

// Calls `launches` type-erased empty tasks per run through a task list, as a dispatcher would.
class DispatchInstance final : public Instance {
 public:
  explicit DispatchInstance(int launches) : tasks_(static_cast<std::size_t>(launches)) {
    for (auto& t : tasks_) t = [this] { ++count_; };
  }
  void run(int times) override {
    for (int t = 0; t < times; ++t) {
      for (const auto& task : tasks_) task();
    }
  }
  // After exactly one run every task ran once.
  Verification verify() override {
    const bool ok = count_ == tasks_.size();
    return {ok, std::to_string(count_) + " of " + std::to_string(tasks_.size()) + " tasks ran"};
  }

 private:
  std::vector<std::function<void()>> tasks_;
  std::size_t count_ = 0;
};

}  // namespace

std::vector<Descriptor> copy_and_launch_descriptors(const SweepPlan& plan) {
  std::vector<Descriptor> out;
  for (const std::int64_t bytes : plan.copy_bytes) {
    Descriptor d;
    d.kind = Kind::kCopy;
    d.name = "copy/memcpy/" + std::to_string(bytes);
    d.params = {{"direction", "host_to_host"}, {"bytes", bytes}, {"library", "memcpy"}};
    d.work.bytes = static_cast<double>(bytes);
    d.setup = [bytes] { return std::make_unique<MemcpyInstance>(bytes); };
    out.push_back(std::move(d));
  }
  Descriptor d;
  d.kind = Kind::kLaunch;
  d.name = "launch/empty_task";
  d.params = {{"launches", plan.launches_per_run}, {"what", "std::function empty task"}};
  d.work.launches = plan.launches_per_run;
  const int launches = plan.launches_per_run;
  d.setup = [launches] { return std::make_unique<DispatchInstance>(launches); };
  out.push_back(std::move(d));
  return out;
}

}  // namespace shardsim::kernels::cpu
