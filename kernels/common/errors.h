// The one error type of the calibration harness: a failed library call (MPI, BLAS, CUDA, cuBLAS,
// NCCL) or a wait that ran past its deadline, named so that the CLI can print "<call> failed: ...".
#pragma once

#include <stdexcept>
#include <string>

namespace shardsim::kernels {

class CallError : public std::runtime_error {
 public:
  // `call` is the failing function as written in the source (e.g. "MPI_Iallreduce",
  // "cublasGemmEx"); `detail` is the library's own message.
  CallError(std::string call, const std::string& detail)
      : std::runtime_error(call + " failed: " + detail), call_(std::move(call)) {}
  [[nodiscard]] const std::string& call() const { return call_; }

 private:
  std::string call_;
};

}  // namespace shardsim::kernels
