// Pinned host <-> device and device -> device copies (cudaMemcpyAsync), and empty-kernel launches.
// Ran on an H200 (see cuda_backend.h).
#include <cstring>
#include <memory>

#include "kernels/common/hash.h"
#include "kernels/cuda/descriptors.h"
#include "kernels/cuda/device_kernels.h"

namespace shardsim::kernels::cuda {
namespace {

class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes) {
    check_cuda(cudaMallocHost(&ptr_, bytes == 0 ? 1 : bytes), "cudaMallocHost");
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { cudaFreeHost(ptr_); }
  [[nodiscard]] unsigned char* get() const { return static_cast<unsigned char*>(ptr_); }

 private:
  void* ptr_ = nullptr;
};

// direction: "host_to_device", "device_to_host", "device_to_device".
class CopyInstance final : public Instance {
 public:
  CopyInstance(std::string direction, std::int64_t bytes, const DeviceContext& ctx)
      : dir_(std::move(direction)),
        n_(static_cast<std::size_t>(bytes)),
        ctx_(ctx),
        host_(n_),
        check_(n_),
        dev_a_(n_),
        dev_b_(n_) {
    // host_ holds the reference pattern. Only the source gets the pattern and the destination
    // is cleared, so verify() can fail when the copy did not happen.
    for (std::size_t i = 0; i < n_; ++i) host_.get()[i] = static_cast<unsigned char>(mix64(i));
    if (dir_ != "host_to_device") {  // the source is dev_a_
      check_cuda(cudaMemcpy(dev_a_.get(), host_.get(), n_, cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    if (dst_on_host()) {
      std::memset(check_.get(), 0, n_);
    } else {
      check_cuda(cudaMemset(dst(), 0, n_), "cudaMemset");
    }
    // cudaMemset runs on the legacy default stream, which does not order the non-blocking
    // ctx_.stream: finish it before the first run.
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }

  void run(int times) override {
    for (int t = 0; t < times; ++t) {
      check_cuda(cudaMemcpyAsync(dst(), src(), n_, cudaMemcpyDefault, ctx_.stream),
                 "cudaMemcpyAsync");
    }
  }

  Verification verify() override {
    check_cuda(cudaStreamSynchronize(ctx_.stream), "cudaStreamSynchronize");
    // device_to_host copied into check_ itself; otherwise read the device destination back.
    if (!dst_on_host()) {
      check_cuda(cudaMemcpy(check_.get(), dst(), n_, cudaMemcpyDeviceToHost), "cudaMemcpy");
    }
    const bool ok = std::memcmp(check_.get(), host_.get(), n_) == 0;
    return {ok, ok ? "destination equals source" : "destination differs from source"};
  }

 private:
  [[nodiscard]] bool dst_on_host() const { return dir_ == "device_to_host"; }
  [[nodiscard]] void* src() const {
    return dir_ == "host_to_device" ? static_cast<void*>(host_.get()) : dev_a_.get();
  }
  [[nodiscard]] void* dst() const {
    if (dir_ == "device_to_host") return check_.get();
    return dir_ == "host_to_device" ? dev_a_.get() : dev_b_.get();
  }

  std::string dir_;
  std::size_t n_;
  const DeviceContext& ctx_;
  PinnedBuffer host_;
  PinnedBuffer check_;
  DeviceBuffer dev_a_;
  DeviceBuffer dev_b_;
};

class LaunchInstance final : public Instance {
 public:
  LaunchInstance(int launches, const DeviceContext& ctx)
      : launches_(launches), ctx_(ctx), flag_(sizeof(int)) {
    // A flag left at 1 by chance must not pass verify() without a run.
    check_cuda(cudaMemset(flag_.get(), 0, sizeof(int)), "cudaMemset");
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  void run(int times) override {
    for (int t = 0; t < times; ++t) {
      check_cuda(launch_empty(launches_, static_cast<int*>(flag_.get()), ++runs_, ctx_.stream),
                 "empty kernel launch");
    }
  }
  // The kernel stores its run number: after one run the flag is 1.
  Verification verify() override {
    int flag = 0;
    // The launches went to the non-blocking ctx_.stream, which cudaMemcpy (legacy default
    // stream) does not wait for.
    check_cuda(cudaStreamSynchronize(ctx_.stream), "cudaStreamSynchronize");
    check_cuda(cudaMemcpy(&flag, flag_.get(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return {flag == 1, "flag after one run: " + std::to_string(flag)};
  }

 private:
  int launches_;
  const DeviceContext& ctx_;
  DeviceBuffer flag_;
  int runs_ = 0;
};

}  // namespace

std::vector<Descriptor> copy_and_launch_descriptors(const SweepPlan& plan,
                                                    const DeviceContext& ctx) {
  std::vector<Descriptor> out;
  const DeviceContext* c = &ctx;
  for (const char* dir : {"host_to_device", "device_to_host", "device_to_device"}) {
    for (const std::int64_t bytes : plan.copy_bytes) {
      Descriptor d;
      d.kind = Kind::kCopy;
      d.name = "copy/" + std::string(dir) + "/" + std::to_string(bytes);
      d.params = {{"direction", dir},
                  {"bytes", bytes},
                  {"host_memory", "pinned"},
                  {"library", "cudaMemcpyAsync"}};
      d.work.bytes = static_cast<double>(bytes);
      const std::string direction = dir;
      d.setup = [direction, bytes, c] {
        return std::make_unique<CopyInstance>(direction, bytes, *c);
      };
      out.push_back(std::move(d));
    }
  }
  Descriptor d;
  d.kind = Kind::kLaunch;
  d.name = "launch/empty_kernel";
  d.params = {{"launches", plan.launches_per_run}, {"what", "<<<1, 1>>> kernel storing one int"}};
  d.work.launches = plan.launches_per_run;
  const int launches = plan.launches_per_run;
  d.setup = [launches, c] { return std::make_unique<LaunchInstance>(launches, *c); };
  out.push_back(std::move(d));
  return out;
}

}  // namespace shardsim::kernels::cuda
