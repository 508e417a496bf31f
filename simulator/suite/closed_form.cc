#include "simulator/suite/closed_form.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "simulator/core/units.h"
#include "simulator/memory/activations.h"
#include "simulator/memory/deepspeed_estimator.h"
#include "simulator/memory/model_states.h"
#include "simulator/model/ops.h"
#include "simulator/plan/schedule.h"

namespace shardsim::suite {
namespace {

struct Inputs {
  const ClosedForm& f;
  [[nodiscard]] const std::string& text(const std::string& key) const {
    const auto it = f.inputs.find(key);
    if (it == f.inputs.end())
      throw std::logic_error(fmt::format("memory case {}: no input \"{}\"", f.kind, key));
    return it->second;
  }
  [[nodiscard]] double num(const std::string& key) const { return std::stod(text(key)); }
  [[nodiscard]] int integer(const std::string& key) const { return int(num(key)); }
  [[nodiscard]] bool flag(const std::string& key) const { return num(key) != 0; }
};

// The ZeRO paper's setting: fp16 mixed precision with Adam, K = 12 (16 B per parameter).
StateBytesPerParam zero_paper_bytes() {
  return state_bytes_per_param(Dtype::kFp16, GradDtype::kSame, Optimizer::kAdam, false);
}

// ZERO-01/02: per-device model states, 16 psi / (2 + 2 + K) sharded by stage over N_d.
double zero_states(const Inputs& in) {
  return zero_sharded_states(in.num("params"), zero_paper_bytes(), in.integer("stage"),
                             in.num("nd"))
      .total();
}

// ZERO-03: the largest model whose states fit `gpu_gb` GB per GPU with MP-way model parallelism:
// gpu_gb * 1e9 * MP / (bytes per parameter at this stage and N_d), in parameters.
double zero_max_params(const Inputs& in) {
  const double per_param =
      zero_sharded_states(1.0, zero_paper_bytes(), in.integer("stage"), in.num("nd")).total();
  return in.num("gpu_gb") * kGB * in.num("mp") / per_param;
}

double deepspeed(const Inputs& in, bool zero3) {
  const int gpn = in.integer("gpus_per_node"), nodes = in.integer("nodes");
  const DeepSpeedEstimate e =
      zero3 ? deepspeed_zero3_estimate(in.num("params"), in.num("largest_layer"), gpn, nodes,
                                       in.flag("offload_params"), in.flag("offload_optimizer"),
                                       in.flag("zero_init"))
            : deepspeed_zero2_estimate(in.num("params"), gpn, nodes, in.flag("offload_optimizer"));
  return in.text("side") == "gpu" ? e.gpu_bytes : e.cpu_bytes;
}

// DS-03: the Adam states alone (fp32 master, momentum, variance), sharded by ZeRO-1 over N_d.
double optimizer_states(const Inputs& in) {
  return zero_sharded_states(in.num("params"), zero_paper_bytes(), in.integer("stage"),
                             in.num("nd"))
      .optimizer;
}

Dtype dtype_of(const std::string& name) {
  if (name == "bf16") return Dtype::kBf16;
  if (name == "fp16") return Dtype::kFp16;
  if (name == "fp32") return Dtype::kFp32;
  throw std::logic_error("memory case: precision " + name);
}

// MEGATRON-DISTOPT: model-state bytes per parameter, the distributed optimizer being ZeRO-1 over d.
double bytes_per_param(const Inputs& in) {
  const GradDtype grads = in.text("grad_dtype") == "fp32" ? GradDtype::kFp32 : GradDtype::kSame;
  const auto b =
      state_bytes_per_param(dtype_of(in.text("precision")), grads, Optimizer::kAdam, false);
  return zero_sharded_states(1.0, b, in.integer("zero"), in.num("d")).total();
}

// KOR-01: one GPT layer of Korthikanti et al. (GeLU MLP of 4h, LayerNorm, biases, dropout, no
// flash attention), activation bytes one TP rank keeps, by mode.
double layer_activations(const Inputs& in) {
  ModelConfig m;
  m.name = "korthikanti";
  m.layers = 1;
  m.hidden = std::int64_t(in.num("hidden"));
  m.heads = in.integer("heads");
  m.vocab = 51200;
  m.bias = true;
  m.dropout = true;
  m.tied_embeddings = true;
  const double seq = in.num("seq"), b = in.num("micro_batch");
  const int t = in.integer("tp");
  const std::string& mode = in.text("mode");
  ActivationOptions o{t, false, Recompute::kNone, Dtype::kBf16};
  if (mode == "none")
    o.tp = 1;
  else if (mode == "tp_sp")
    o.sp = true;
  else if (mode == "tp_selective")
    o.recompute = Recompute::kSelective;
  else if (mode == "tp_sp_selective")
    o = {t, true, Recompute::kSelective, Dtype::kBf16};
  else if (mode == "full")  // the table's 2sbh: the whole layer input, not split over TP
    o.recompute = Recompute::kFull;
  else if (mode != "tp")
    throw std::logic_error("memory case: activation mode " + mode);
  const auto ops = layer_ops(m, 0, OpShape{seq, seq, b, false});
  return layer_activation_bytes(ops, seq * b, double(m.hidden), o);
}

// KOR-01 first-stage totals: per-layer bytes x L/p layers x the micro-batches 1F1B's first stage
// holds (p of them when m >= p), i.e. L layers' worth.
double first_stage_activations(const Inputs& in) {
  const int p = in.integer("pp");
  const double in_flight =
      in_flight_microbatches(Schedule::k1F1B, 0, p, 1, std::int64_t(in.num("microbatches")));
  return layer_activations(in) * (in.num("layers") / p) * in_flight;
}

double in_unit(double raw, const std::string& unit) {
  if (unit == "GB") return raw / kGB;
  if (unit == "GiB") return raw / kGiB;
  if (unit == "MiB") return raw / kMiB;
  if (unit == "B_params") return raw / 1e9;
  if (unit == "B/param") return raw;
  throw std::logic_error("memory case: unit " + unit);
}

}  // namespace

double closed_form_value(const ClosedForm& f, const std::string& unit) {
  const Inputs in{f};
  double raw = 0;
  if (f.kind == "zero_states")
    raw = zero_states(in);
  else if (f.kind == "zero_max_params")
    raw = zero_max_params(in);
  else if (f.kind == "deepspeed_zero2" || f.kind == "deepspeed_zero3")
    raw = deepspeed(in, f.kind == "deepspeed_zero3");
  else if (f.kind == "optimizer_states")
    raw = optimizer_states(in);
  else if (f.kind == "bytes_per_param")
    raw = bytes_per_param(in);
  else if (f.kind == "layer_activations")
    raw = layer_activations(in);
  else if (f.kind == "first_stage_activations")
    raw = first_stage_activations(in);
  else
    throw std::logic_error("memory case: unknown kind " + f.kind);
  return in_unit(raw, unit);
}

double as_printed(double value, const ClosedForm& f) {
  if (f.shift20) return double(std::int64_t(value * kMiB) >> 20);
  const double scale = std::pow(10.0, f.decimals);
  return std::round(value * scale) / scale;
}

}  // namespace shardsim::suite
