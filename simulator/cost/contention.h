// Compute slowed by an overlapping collective: while a collective runs on a GPU its kernels hold
// SMs and HBM bandwidth, so the compute kernels beside it run slower (Lee et al., arXiv:2507.03114,
// 2025: 18.9% mean computational slowdown under overlap on A100, H100, MI250 and MI210; the
// profile's compute.overlap_compute_slowdown). Pure functions; the discrete-event simulation
// applies the same rule instant by instant to data-parallel traffic (des/step_sim.cc), the
// analytic model through these, and both models through these to TP collectives overlapped with
// their pass's GEMMs (cost/layer_costs.cc, parallel.overlap_tp_comm).
//
// Derivation. Compute of c seconds (alone) starts with a collective of g seconds; while the
// collective runs, compute progresses at 1 / (1 + s). If g >= c (1 + s) the compute finishes
// under the collective and the pair takes g. Otherwise by time g the compute has done g / (1 + s)
// and runs the rest, c - g / (1 + s), at full speed: the pair takes c + g s / (1 + s). The
// collective itself is taken as unslowed.
#pragma once

#include <algorithm>

namespace shardsim {

// Wall seconds of `compute_s` of compute overlapped from its start by a collective of `comm_s`.
[[nodiscard]] inline double overlapped_seconds(double compute_s, double comm_s, double slowdown) {
  if (comm_s <= 0 || slowdown <= 0) return std::max(compute_s, comm_s);
  if (comm_s >= compute_s * (1 + slowdown)) return comm_s;
  return compute_s + comm_s * slowdown / (1 + slowdown);
}

// What contention adds to the pair over perfect overlap, max(compute_s, comm_s).
[[nodiscard]] inline double contention_seconds(double compute_s, double comm_s, double slowdown) {
  return std::max(0.0,
                  overlapped_seconds(compute_s, comm_s, slowdown) - std::max(compute_s, comm_s));
}

}  // namespace shardsim
