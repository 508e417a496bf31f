// The validation report as JSON and text (validate.h; schema
// reports/schemas/validation-report.schema.json).
#include <fmt/format.h>

#include "calibrate/validate.h"

namespace shardsim::calibrate {
namespace {

using nlohmann::json;

json composite_json(const kernels::CompositeConfig& c) {
  return {{"layers", c.layers},
          {"hidden", c.hidden},
          {"heads", c.heads},
          {"ffn_hidden", c.ffn_hidden},
          {"vocab", c.vocab},
          {"seq_len", c.seq_len},
          {"micro_batch", c.micro_batch},
          {"warmup_steps", c.warmup_steps},
          {"timed_steps", c.timed_steps},
          {"parameters", kernels::composite_parameters(c)}};
}

std::string ms(double s) {
  return fmt::format("{:.3f}", s * 1e3);
}

}  // namespace

json validation_json(const ValidationResult& r, const GpuProfile& profile) {
  json items = json::array();
  for (const auto& i : r.items)
    items.push_back({{"name", i.name},
                     {"kind", i.kind},
                     {"measured_seconds", i.measured_seconds},
                     {"predicted_seconds", i.predicted_seconds},
                     {"abs_pct_error", i.abs_pct_error},
                     {"held_out", i.held_out}});
  const ValidationStep& s = r.step;
  json phases = json::array();
  for (const auto& p : s.phases)
    phases.push_back({{"name", p.name},
                      {"measured_seconds", p.measured_seconds},
                      {"predicted_seconds", p.predicted_seconds},
                      {"abs_pct_error", p.abs_pct_error}});
  return {
      {"profile", profile_summary(profile)},
      {"composite", composite_json(r.composite)},
      {"ranks", r.ranks},
      {"ranks_per_node", r.ranks_per_node},
      {"scenario", r.scenario},
      {"validation",
       {{"items", items},
        {"step",
         {{"measured_seconds", s.measured_seconds},
          {"predicted_seconds", s.predicted_seconds},
          {"abs_pct_error", s.abs_pct_error},
          {"predicted_mode", "des"},
          {"predicted_analytic_seconds", s.predicted_analytic_seconds},
          {"samples_s", s.samples_s},
          {"phases", phases},
          {"verified", s.verified},
          {"verification", s.verification}}},
        {"held_out_median_abs_pct_error", r.held_out_median_abs_pct_error},
        {"fitted_median_abs_pct_error", r.fitted_median_abs_pct_error}}},
  };
}

std::string validation_text(const ValidationResult& r, const GpuProfile& profile) {
  const auto& c = r.composite;
  std::string out = fmt::format(
      "Validation of profile '{}' on {} rank(s), {} per node\n"
      "Composite step: GPT {} layers, hidden {}, heads {}, ffn {}, vocab {}, seq {}, micro-batch "
      "{}, fp32, Adam, data parallel {}\n\n",
      profile.name, r.ranks, r.ranks_per_node, c.layers, c.hidden, c.heads, c.ffn_hidden, c.vocab,
      c.seq_len, c.micro_batch, r.ranks);
  out += fmt::format("{:<44} {:>9} {:>12} {:>13} {:>8}\n", "item", "held out", "measured ms",
                     "predicted ms", "error %");
  for (const auto& i : r.items)
    out += fmt::format("{:<44} {:>9} {:>12} {:>13} {:>8.1f}\n", i.name, i.held_out ? "yes" : "no",
                       ms(i.measured_seconds), ms(i.predicted_seconds), i.abs_pct_error);
  const ValidationStep& s = r.step;
  out += fmt::format("{:<44} {:>9} {:>12} {:>13} {:>8.1f}\n", "composite step (des)", "-",
                     ms(s.measured_seconds), ms(s.predicted_seconds), s.abs_pct_error);
  out += fmt::format("{:<44} {:>9} {:>12} {:>13} {:>8.1f}\n", "composite step (analytic)", "-",
                     ms(s.measured_seconds), ms(s.predicted_analytic_seconds),
                     abs_pct_error(s.predicted_analytic_seconds, s.measured_seconds));
  for (const auto& p : s.phases)
    out += fmt::format("{:<44} {:>9} {:>12} {:>13} {:>8.1f}\n", "  phase " + p.name + " (des)", "-",
                       ms(p.measured_seconds), ms(p.predicted_seconds), p.abs_pct_error);
  out += "\n";
  out += fmt::format("held-out median error: {:.1f}%   fitted-size median error: {:.1f}%\n",
                     r.held_out_median_abs_pct_error, r.fitted_median_abs_pct_error);
  out += fmt::format("step check: {} ({})\n", s.verified ? "ok" : "FAILED", s.verification);
  return out;
}

}  // namespace shardsim::calibrate
