// The memory-bound kernels of memory_ops.h on the device, verified against the double reference
// on the host. Ran on an H200 (see cuda_backend.h).
#include <memory>

#include "kernels/cuda/descriptors.h"
#include "kernels/cuda/device_kernels.h"

namespace shardsim::kernels::cuda {
namespace {

class MemOpInstance final : public Instance {
 public:
  MemOpInstance(MemOp op, MemoryShape s, const DeviceContext& ctx)
      : op_(op),
        s_(s),
        ctx_(ctx),
        data_(make_mem_op_data(op, s, k_)),
        y_(data_.inputs[0].size() * sizeof(float)) {
    for (const auto& host : data_.inputs) {
      tensors_.push_back(std::make_unique<DeviceBuffer>(host.size() * sizeof(float)));
      upload(ctx_, tensors_.back()->f32(), host);
      ptrs_.push_back(tensors_.back()->f32());
    }
  }

  void run(int times) override {
    for (int t = 0; t < times; ++t) {
      check_cuda(launch_mem_op(op_, ptrs_.data(), y_.f32(), s_, k_, ctx_.stream),
                 "launch_mem_op (kernel launch)");
    }
  }

  Verification verify() override {
    const std::size_t n = data_.inputs[0].size();
    if (op_ != MemOp::kAdam)
      return compare(download(ctx_, y_.f32(), n), data_.expected, 1e-4, 1e-6);
    std::vector<float> pmv = download(ctx_, ptrs_[0], n);
    for (const std::size_t i : {std::size_t{2}, std::size_t{3}}) {
      const std::vector<float> t = download(ctx_, ptrs_[i], n);
      pmv.insert(pmv.end(), t.begin(), t.end());
    }
    return compare(pmv, data_.expected, 1e-4, 1e-9);
  }

 private:
  MemOp op_;
  MemoryShape s_;
  const DeviceContext& ctx_;
  MemOpConstants k_;
  MemOpData data_;
  DeviceBuffer y_;
  std::vector<std::unique_ptr<DeviceBuffer>> tensors_;
  std::vector<float*> ptrs_;
};

}  // namespace

std::vector<Descriptor> memory_bound_descriptors(const SweepPlan& plan, const DeviceContext& ctx) {
  std::vector<Descriptor> out;
  for (const MemoryShape& s : plan.memory_shapes) {
    for (const MemOp op : kAllMemOps) {
      Descriptor d = memory_bound_descriptor(op, s);
      const DeviceContext* c = &ctx;
      d.setup = [op, s, c] { return std::make_unique<MemOpInstance>(op, s, *c); };
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace shardsim::kernels::cuda
