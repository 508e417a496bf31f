#include "simulator/memory/overheads.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "simulator/memory/model_states.h"

namespace shardsim {

int communicator_count(const Plan& plan) {
  return int(plan.tp > 1) + int(plan.cp > 1) + int(plan.dp * plan.cp > 1) + int(plan.ep > 1) +
         int(plan.pp > 1);
}

namespace {

// Appends a term; its note is formatted only when notes were asked for.
template <class Note>
void push(OverheadTerms& out, bool notes, std::string_view name, double bytes, Note&& note) {
  OverheadTerm& t = out.items[out.count++];
  t.name = name;
  t.bytes = bytes;
  if (notes) t.note = note();
}

}  // namespace

OverheadTerms overhead_terms(const Scenario& s, const Plan& plan, const RankFootprint& f,
                             bool notes) {
  const OverheadConfig& o = s.overheads;
  const auto& t = s.training;
  OverheadTerms terms;
  auto add = [&](std::string_view name, double bytes, auto&& note) {
    push(terms, notes, name, bytes, note);
  };
  auto text = [](const char* note) { return [note] { return std::string(note); }; };
  add("overhead.cuda_context", o.cuda_context_bytes,
      text("CUDA context and loaded kernels (overheads.cuda_context_bytes)"));
  add("overhead.gemm_workspace", o.gemm_workspace_bytes,
      text("cuBLAS workspace (overheads.gemm_workspace_bytes)"));
  const int comms = communicator_count(plan);
  add("overhead.nccl", comms * o.nccl_bytes_per_communicator, [&] {
    return fmt::format("{} communicator(s) x overheads.nccl_bytes_per_communicator", comms);
  });
  const ZeroTraits& zero = s.strategy.zero_facts();
  const bool data_parallel = plan.dense_shard_degree() > 1;
  const auto b = state_bytes_per_param(t.precision, t.grad_dtype, t.optimizer, false);
  if (!zero.reduce_scatters_grads && data_parallel) {
    // A bucket never holds more than the rank's gradient (found by review, 2026-11-27: a 1 TB
    // bucket was counted beside 7.5 GiB of gradients).
    const double bucket = std::min(o.ddp_bucket_bytes, f.local_params * b.grads);
    add("overhead.ddp_bucket", bucket, [&] {
      return fmt::format(
          "gradient all-reduce bucket of {:.4g} bytes (overheads.ddp_bucket_bytes, capped at the "
          "rank's gradient)",
          bucket);
    });
  }
  if (zero.gathers_params_after_step && data_parallel) {
    const double elems = std::min(o.zero_bucket_elements, f.local_params);
    add("overhead.zero_buckets", elems * (b.grads + b.params), [&] {
      return fmt::format(
          "reduce and all-gather buckets of {:.3g} elements "
          "(overheads.zero_bucket_elements, capped at the rank's params)",
          elems);
    });
  }
  // Offloaded parameters are copied onto the GPU unit by unit whatever the sharding degree: with
  // one sharding rank (ZeRO-Infinity on one GPU) the units still pass through these buffers
  // (found by review, 2026-11-29: params 0 and no buffers, 10.5 GiB on one GPU against 13.0 on
  // two; the step-time model already prices each unit's host-to-device copy at dp 1).
  if (zero.gathers_params_per_layer && (data_parallel || s.strategy.offload_params)) {
    // Ahead of the unit computing: DeepSpeed's prefetch bucket, or the parallel.zero3_prefetch
    // units the step-time model gathers ahead (FSDP's default 1), whichever is more (found by
    // review, 2026-11-28: the timing held d + 1 units gathered while memory counted one and the
    // bucket, 1.9 GiB short per GPU on llama3-70b-fsdp-64xh100, whose largest unit is its
    // embedding). What runs ahead is the rank's other units: a stage never holds more gathered
    // than all its parameters, and with one sharding rank nothing is gathered at all (PyTorch's
    // FSDP falls back to NO_SHARD on one rank), as for the ZeRO-1/2 buckets above (found by a
    // metamorphic review, 2026-11-29: a stage of one GPT-3 layer counted that layer twice,
    // 1.2 GiB more under ZeRO-3 than under ZeRO-2).
    // The units prefetched are the neighbours of the one computing, not copies of the largest
    // (found by review, 2026-11-29: llama3-70b-fsdp-64xh100 counted its output layer's 1.05 G
    // parameters for the block prefetched beside it, 0.36 GiB more than the 0.86 G block): the
    // largest window of depth + 1 consecutive units, less the largest unit, bounds what is ahead.
    const int depth = s.strategy.zero3_prefetch;
    const double ahead = std::max(0.0, f.largest_window - f.largest_layer);
    const double prefetch =
        std::min(std::max(o.zero3_prefetch_elements, ahead), f.local_params - f.largest_layer);
    const double gathered = (f.largest_layer + prefetch) * b.params + f.largest_layer * b.grads;
    add("overhead.zero3_buffers", gathered, [&] {
      return fmt::format(
          "largest unit gathered ({:.3g} params) + prefetched ({:.3g}: the larger of "
          "overheads.zero3_prefetch_elements and the parallel.zero3_prefetch = {} unit(s) beside "
          "it in the largest window of consecutive units, at most the rank's other units) + its "
          "gradient reduce-scatter buffer",
          f.largest_layer, prefetch, depth);
    });
  }
  const auto& m = s.model;
  if (f.moe_layers && plan.ep > 1) {
    // All-to-all dispatch: send and receive buffers of one micro-batch's routed tokens. Under
    // sequence parallelism each TP rank sends its own s / tp tokens' top-k copies over EP and
    // receives as many; the TP all-gather that follows makes the experts' input, which the
    // activations count (its fc1 input). Until 2026-11-29 the buffers held all s tokens, tp times
    // too many (found by a numeric review: 128 MiB where Megatron-Core's dispatcher holds 64 on
    // mixtral-8x7b-16xh100).
    const double act = activation_bytes(t.precision);
    const double tokens = double(t.seq_len) / plan.cp * double(t.micro_batch) /
                          (s.strategy.sp ? double(plan.tp) : 1.0);
    add("overhead.moe_dispatch", 2 * tokens * m.moe.top_k * double(m.hidden) * act,
        text("expert-parallel all-to-all send and receive buffers (one micro-batch's tokens on "
             "this rank, s / tp of them under sequence parallelism)"));
  }
  if (plan.cp > 1) {
    // Buffers of Transformer Engine's context-parallel exchange (context_parallel.py), one layer
    // at a time, in units of this rank's K and V (kv) or its Q, K, V and output (qkvo):
    // - p2p: the forward keeps every K/V chunk it receives (its own copy included) until the
    //   attention returns, cp x kv; the backward two double buffers of K/V and dK/dV, 4 x kv.
    // - all_gather: the backward gathers K and V again (cp x kv), zeroes dK and dV of the whole
    //   sequence (cp x kv) and holds each of its two steps' dK and dV over the keys that step's
    //   chunk sees: rank r's chunks see r + 1 and 2 cp - r of the 2 cp chunks, (cp + 1/2) x kv
    //   on every rank.
    // - a2a: the other side of each all-to-all (Q, K, V in, the output out): qkvo.
    const double act = activation_bytes(t.precision);
    const double per_width = double(t.seq_len) / plan.cp * double(t.micro_batch) / plan.tp * act;
    const auto w = m.attention_widths();
    const double kv = per_width * (w.k + w.v), qkvo = per_width * (w.q + w.k + w.v + w.out);
    const double cp = plan.cp;
    const CpComm type = s.strategy.cp_comm;
    const double bytes = type == CpComm::kP2p         ? std::max(cp, 4.0) * kv
                         : type == CpComm::kAllGather ? (3 * cp + 0.5) * kv
                                                      : qkvo;
    add("overhead.cp_exchange", bytes, [&, kv, qkvo, cp, type] {
      const std::string unit = fmt::format("this rank's K and V, {:.4g} bytes", kv);
      return type == CpComm::kP2p
                 ? fmt::format(
                       "context-parallel ring (parallel.cp_comm_type p2p): the {} K/V "
                       "chunks of the forward, or the backward's 4 double buffers of K/V "
                       "and dK/dV, the larger; x {}",
                       cp, unit)
             : type == CpComm::kAllGather
                 ? fmt::format(
                       "context-parallel all-gather (parallel.cp_comm_type all_gather): K "
                       "and V gathered again in the backward, dK and dV of the whole "
                       "sequence, and each step's dK and dV: (3 x {} + 1/2) x {}",
                       cp, unit)
                 : fmt::format(
                       "context-parallel all-to-all (parallel.cp_comm_type a2a): the other "
                       "side of the exchange of Q, K, V and the output, {:.4g} bytes",
                       qkvo);
    });
  }
  // Whole bytes, rounded up: 10 % of an activation total not divisible by 10 left a fraction of
  // a byte in the reports (found by review, 2026-11-29: "3901530931.2").
  add("overhead.fragmentation", std::ceil(o.fragmentation_fraction * f.activations), [&] {
    return fmt::format("allocator slack: {} x activations (overheads.fragmentation_fraction)",
                       o.fragmentation_fraction);
  });
  return terms;
}

}  // namespace shardsim
