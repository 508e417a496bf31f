// The host as a resource: a training framework spends CPU time issuing every operation and
// collective of a rank (PyTorch eager: Python, the dispatcher, autograd, the CUDA launch), and the
// GPU cannot start an operation before the host has issued it. Pure functions of the framework
// profile (scenario.h FrameworkConfig) and the counts of a layer's work.
//
// Derivation. The host issues the n operations of a work item in program order, one every d
// seconds, and runs ahead of the GPU (kernel launches are asynchronous). The GPU runs operation i
// at max(its end of i-1, i*d) for c_i seconds, so the item ends at max(sum c_i, n*d + c_n) and
// never before either: the host-bound time n*d is a floor under the GPU time. With the last
// operation's own time small against the item, item time = max(G, H) with G the GPU time and
// H = n*d: the GPU waits max(0, H - G) for the host (host_exposed). The model applies that bound
// per work item (one micro-batch's pass over a stage, or one block of it when the simulation splits
// items per block); across items the host is assumed to synchronise (Megatron synchronises after
// every pipeline transfer), so it does not run ahead into the next item.
//
// Synchronising calls. The bound above assumes the host never waits for the GPU inside an item.
// A host that waits for the GPU to finish everything issued so far after every operation (a
// blocking launch, a device-to-host read) overlaps nothing: the item takes H + G. Real stacks sit
// between the two (a host read of a device value, an allocator or RNG-state call that waits, a
// blocking copy, at some of the operations), and the model interpolates linearly:
//   item time = max(G, H) + s * min(G, H),  s = host_sync_fraction in [0, 1],
// so the GPU waits max(0, H - G) + s * min(G, H) beyond its own time. s = 0 gives the bound
// above, s = 1 the fully serial item. s is a property of the software stack; megatron-eager's is
// fitted with its other host costs on the vTrain calibration rows (suite/framework_fit.h).
#pragma once

#include <algorithm>

#include "simulator/scenario/scenario.h"

namespace shardsim {

// What one unit (block, embedding, output layer) issues per micro-batch.
struct DispatchCounts {
  double ops = 0;               // operations of its op list (model/ops.h), forward
  double gemms = 0;             // of which GEMMs (their weight gradients form ZB's W pass)
  double fwd_colls = 0;         // collective calls in the forward pass (TP, CP, EP)
  double bwd_colls = 0;         // collective calls in the backward pass
  bool recompute_full = false;  // the backward pass re-issues the forward
  bool split_weight = false;    // zero-bubble: weight gradients are issued in their own W pass
};

struct HostSeconds {
  double fwd = 0, bwd_input = 0, bwd_weight = 0;
};

// Host seconds per pass: forward issues each op once; backward issues one autograd node per op
// (its input- and weight-gradient kernels together), except under the zero-bubble schedules where
// the GEMMs' weight gradients are issued again in W; full recomputation re-issues the forward
// (ops and collectives) inside the backward pass.
[[nodiscard]] inline HostSeconds host_dispatch_seconds(const FrameworkConfig& f,
                                                       const DispatchCounts& n) {
  HostSeconds h;
  h.fwd = n.ops * f.op_dispatch_s + n.fwd_colls * f.collective_dispatch_s;
  h.bwd_input = n.ops * f.op_dispatch_s + n.bwd_colls * f.collective_dispatch_s;
  if (n.recompute_full) h.bwd_input += h.fwd;
  if (n.split_weight) h.bwd_weight = n.gemms * f.op_dispatch_s;
  return h;
}

// Seconds the GPU waits for the host in a work item of GPU time `gpu_s` whose work the host takes
// `host_s` to issue, with `sync_fraction` of the shorter of the two not overlapping the longer
// (derivation above; 0 <= sync_fraction <= 1).
[[nodiscard]] inline double host_exposed(double host_s, double gpu_s, double sync_fraction) {
  return std::max(0.0, host_s - gpu_s) + sync_fraction * std::min(host_s, gpu_s);
}

}  // namespace shardsim
