// The cuda backend: device selection, shared handles, the CUDA-event timer and the descriptor
// list. Ran on an H200 (see cuda_backend.h).
#include "kernels/cuda/cuda_backend.h"

#include <chrono>
#include <thread>

#include "kernels/cuda/composite.h"
#include "kernels/cuda/descriptors.h"
#include "kernels/cuda/device_query.h"

namespace shardsim::kernels::cuda {
namespace {

constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;  // 32 MiB cuBLAS(Lt) workspace

// Times Instance::run with events on the backend's stream. Waits by polling cudaEventQuery with
// the cross-rank deadline and the instance's NCCL communicator (wait_device), so a hung NCCL call
// (a lost peer) becomes a CallError naming the collective, not a hang.
class EventTimer final : public Timer {
 public:
  explicit EventTimer(const DeviceContext& ctx) : ctx_(ctx) {
    check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }

  double time(Instance& instance, int times) override {
    check_cuda(cudaEventRecord(start_, ctx_.stream), "cudaEventRecord");
    instance.run(times);
    check_cuda(cudaEventRecord(stop_, ctx_.stream), "cudaEventRecord");
    wait_device(
        ctx_, [this] { return cudaEventQuery(stop_); }, "cudaEventQuery",
        dynamic_cast<PeerWork*>(&instance));
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e-3;
  }
  std::string_view name() const override { return "cudaEventElapsedTime"; }

 private:
  const DeviceContext& ctx_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// The backend's stream, cuBLAS/cuBLASLt handles and workspace. Each is released by the
// destructor, and what was already created is released when a later creation step throws.
class OwnedContext {
 public:
  explicit OwnedContext(double timeout_s) {
    try {
      create(timeout_s);
    } catch (...) {
      release();
      throw;
    }
  }
  ~OwnedContext() { release(); }
  OwnedContext(const OwnedContext&) = delete;
  OwnedContext& operator=(const OwnedContext&) = delete;
  [[nodiscard]] const DeviceContext& get() const { return c_; }

 private:
  void create(double timeout_s) {
    c_.timeout_s = timeout_s;
    check_cuda(cudaGetDevice(&c_.device), "cudaGetDevice");
    check_cuda(cudaDeviceGetAttribute(&c_.cc_major, cudaDevAttrComputeCapabilityMajor, c_.device),
               "cudaDeviceGetAttribute");
    check_cuda(cudaDeviceGetAttribute(&c_.cc_minor, cudaDevAttrComputeCapabilityMinor, c_.device),
               "cudaDeviceGetAttribute");
    check_cuda(cudaStreamCreateWithFlags(&c_.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check_cublas(cublasCreate(&c_.blas), "cublasCreate");
    check_cublas(cublasSetStream(c_.blas, c_.stream), "cublasSetStream");
    check_cublas(cublasLtCreate(&c_.lt), "cublasLtCreate");
    check_cuda(cudaMalloc(&c_.workspace, kWorkspaceBytes), "cudaMalloc");
    c_.workspace_bytes = kWorkspaceBytes;
    check_cublas(cublasSetWorkspace(c_.blas, c_.workspace, c_.workspace_bytes),
                 "cublasSetWorkspace");
  }
  void release() noexcept {
    // The handles before the workspace they were given, the stream last.
    if (c_.lt != nullptr) cublasLtDestroy(c_.lt);
    if (c_.blas != nullptr) cublasDestroy(c_.blas);
    if (c_.workspace != nullptr) cudaFree(c_.workspace);
    if (c_.stream != nullptr) cudaStreamDestroy(c_.stream);
    c_.workspace = nullptr;
    c_.lt = nullptr;
    c_.blas = nullptr;
    c_.stream = nullptr;
  }
  DeviceContext c_;
};

// Members are destroyed in reverse order: the timer, then the NCCL communicators (finalized while
// the stream and handles still exist), then the context.
class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(const Comm& world)
      : owned_(world.timeout_s()), nccl_(world, world.timeout_s()), timer_(ctx_) {}

  std::string name() const override { return "cuda"; }

  nlohmann::json context() const override {
    const shardsim::cuda::DeviceQuery q = shardsim::cuda::query_devices(false);
    nlohmann::json device = nullptr;
    for (const auto& d : q.devices) {
      if (d.index != ctx_.device) continue;
      device = {{"index", d.index},
                {"name", d.name},
                {"compute_capability", std::to_string(d.compute_capability_major) + "." +
                                           std::to_string(d.compute_capability_minor)},
                {"memory_bytes", d.memory_bytes},
                {"sm_count", d.sm_count}};
    }
    const auto v = [](const std::optional<shardsim::cuda::Version>& x, bool patch) {
      return x ? nlohmann::json(x->to_string(patch)) : nlohmann::json(nullptr);
    };
    return {{"backend", "cuda"},
            {"device", device},
            {"timer", timer_.name()},
            {"cuda_driver", v(q.versions.driver, false)},
            {"cuda_runtime", v(q.versions.runtime, false)},
            {"cublas", v(q.versions.cublas, true)},
            {"nccl", nccl_version()},
            {"fp8_gemm", ctx_.cc_major * 10 + ctx_.cc_minor >= 89}};
  }

  Timer& timer() override { return timer_; }

  std::vector<Descriptor> descriptors(const SweepPlan& plan) override {
    std::vector<Descriptor> out = copy_and_launch_descriptors(plan, ctx_);
    for (auto&& more : {gemm_descriptors(plan, ctx_), memory_bound_descriptors(plan, ctx_),
                        collective_descriptors(plan, nccl_, ctx_)}) {
      out.insert(out.end(), more.begin(), more.end());
    }
    return out;
  }
  CompositeResult run_composite(const CompositeConfig& config, const Comm& world) override {
    return cuda::run_composite(config, world, ctx_, nccl_);
  }

 private:
  OwnedContext owned_;
  const DeviceContext& ctx_ = owned_.get();
  NcclGroups nccl_;
  EventTimer timer_;
};

}  // namespace

void wait_device(const DeviceContext& ctx, const std::function<cudaError_t()>& query,
                 const char* query_name, PeerWork* peers) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(ctx.timeout_s);
  for (;;) {
    const cudaError_t e = query();
    if (e == cudaSuccess) break;
    if (e != cudaErrorNotReady) check_cuda(e, query_name);
    if (peers != nullptr) peers->poll();
    std::string why;
    if (const int signal = termination_signal(); signal != 0) {
      why = std::string("interrupted by ") + signal_name(signal) +
            " (the launcher is ending the job: another rank was lost or failed)";
    } else if (std::chrono::steady_clock::now() > deadline) {
      why = "device work did not finish within " + std::to_string(ctx.timeout_s) + " s";
    }
    if (!why.empty()) {
      if (peers != nullptr) peers->give_up(why);
      throw CallError(query_name, why);
    }
    std::this_thread::yield();
  }
  if (peers != nullptr) peers->poll();  // an error raised while the work completed
}

std::vector<float> download(const DeviceContext& ctx, const float* device, std::size_t n) {
  std::vector<float> host(n);
  check_cuda(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize");
  check_cuda(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost),
             "cudaMemcpy");
  return host;
}

void upload(const DeviceContext& ctx, float* device, const std::vector<float>& host) {
  check_cuda(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize");
  check_cuda(cudaMemcpy(device, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice),
             "cudaMemcpy");
  // From pageable memory cudaMemcpy may return before its DMA has landed (CUDA runtime API,
  // "API synchronization behavior"), and ctx.stream is non-blocking: it does not wait for the
  // legacy stream the copy ran on. Wait for that stream before any kernel reads `device`.
  check_cuda(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
}

std::string select_device(int local_rank) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    return std::string("no CUDA device (") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e) +
           ")";
  }
  const int device = local_rank % count;
  const cudaError_t s = cudaSetDevice(device);
  if (s != cudaSuccess) {
    return "no CUDA device (cudaSetDevice(" + std::to_string(device) + "): " + cudaGetErrorName(s) +
           ")";
  }
  return "";
}

std::unique_ptr<Backend> make_cuda_backend(const Comm& world) {
  return std::make_unique<CudaBackend>(world);
}

}  // namespace shardsim::kernels::cuda
