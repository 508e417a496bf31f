#include "reports/step_report.h"

#include <fmt/format.h>

#include "reports/memory_report.h"
#include "reports/report_common.h"
#include "simulator/core/units.h"

namespace shardsim {
namespace {

nlohmann::json breakdown_json(const TimeSplit& b) {
  nlohmann::json j = nlohmann::json::object();
  for (int k = 0; k < kTimeCategoryCount; ++k)
    j[time_category_key(TimeCategory(k))] = b.seconds[std::size_t(k)];
  return j;
}

}  // namespace

nlohmann::json simulate_report_json(const Estimate& e) {
  if (!e.plan) return infeasible_report(e);
  nlohmann::json report = report_header(e);
  add_memory_json(*e.memory, report);
  const StepTime& t = *e.time;
  report["time"] = {{"mode", mode_name(t.mode)},
                    {"step_seconds", t.step_seconds},
                    {"breakdown", breakdown_json(t.breakdown)},
                    {"critical_pp_stage", t.critical_stage},
                    {"stage_end_seconds", t.stage_end_seconds}};
  const Throughput& th = t.throughput;
  report["throughput"] = {{"tokens_per_second", th.tokens_per_second},
                          {"model_tflops_per_gpu", th.model_tflops_per_gpu},
                          {"hardware_tflops_per_gpu", th.hardware_tflops_per_gpu},
                          {"mfu", th.mfu},
                          {"hfu", th.hfu},
                          {"peak_flops_per_gpu", t.peak_flops_per_gpu},
                          {"flop_convention", kFlopConvention}};
  report["feasibility"] = feasibility_json(e.infeasible);
  return report;
}

std::string simulate_report_text(const Estimate& e) {
  if (!e.plan) return infeasible_text(e);
  const StepTime& t = *e.time;
  const MemoryEstimate& mem = *e.memory;
  std::string out = describe_setup(e);
  const Throughput& th = t.throughput;
  out += fmt::format("\nstep time  {:.4f} s ({} model)\n", t.step_seconds,
                     t.mode == Mode::kDes ? "discrete-event" : "analytic");
  out += fmt::format("tokens/s   {:.4g}\n", th.tokens_per_second);
  out += fmt::format(
      "per GPU    model {:.1f} TFLOP/s, hardware {:.1f} TFLOP/s of {:.1f} peak "
      "(1 TFLOP/s = 1e12 FLOP/s)\n",
      th.model_tflops_per_gpu, th.hardware_tflops_per_gpu, t.peak_flops_per_gpu / 1e12);
  out += fmt::format("MFU {:.1f} %, HFU {:.1f} %  (Megatron FLOP convention)\n\n", 100 * th.mfu,
                     100 * th.hfu);
  out += fmt::format("Breakdown of pipeline stage {} (exposed seconds; they sum to the step):\n",
                     t.critical_stage);
  for (int k = 0; k < kTimeCategoryCount; ++k) {
    const double sec = t.breakdown.seconds[std::size_t(k)];
    out += fmt::format("  {:<13} {:>10.4f} s {:>6.1f} %\n", time_category_key(TimeCategory(k)), sec,
                       t.step_seconds > 0 ? 100 * sec / t.step_seconds : 0.0);
  }
  out += fmt::format("\nmemory     peak {:.2f} GiB (2^30 B) on stage {} of {:.2f} GiB: {}\n",
                     mem.peak_bytes / kGiB, mem.peak_stage, mem.capacity_bytes / kGiB,
                     mem.fits ? "fits" : "does NOT fit — " + mem.reason);
  for (const auto& r : e.infeasible)
    out += fmt::format("feasible   no [{}]: {}\n", r.code, r.message);
  return out + warnings_text(e);
}

nlohmann::json explain_json(const std::vector<EffectContribution>& effects, const Scenario& s) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : effects)
    list.push_back({{"name", c.name},
                    {"description", c.description},
                    {"enabled", c.enabled},
                    {"step_seconds_without", c.step_seconds_without},
                    {"seconds", c.seconds}});
  const FrameworkConfig& f = s.framework;
  return {{"effects", list},
          {"framework",
           {{"name", f.name},
            {"op_dispatch_s", f.op_dispatch_s},
            {"collective_dispatch_s", f.collective_dispatch_s},
            {"step_overhead_s", f.step_overhead_s},
            {"host_sync_fraction", f.host_sync_fraction},
            {"fitted", f.fitted},
            {"source", f.source}}},
          {"note",
           "seconds = step with every effect as given minus the step with this one off; effects "
           "interact, so the contributions need not add up to anything"}};
}

std::string explain_text(const std::vector<EffectContribution>& effects, const Scenario& s,
                         double step_seconds) {
  std::string out = fmt::format(
      "\nEffects (seconds each adds to the {:.4f} s step: the step with it on minus with it "
      "off):\n",
      step_seconds);
  for (const auto& c : effects)
    out += c.enabled
               ? fmt::format("  {:<19} {:>+10.4f} s {:>+7.1f} %  {}\n", c.name, c.seconds,
                             step_seconds > 0 ? 100 * c.seconds / step_seconds : 0.0, c.description)
               : fmt::format("  {:<19} {:>10} (off in the scenario)\n", c.name, "-");
  const FrameworkConfig& f = s.framework;
  out += fmt::format(
      "framework  {} ({}): {:.1f} us per operation, {:.1f} us per collective call, {:.2f} ms "
      "per step, host sync fraction {:.3f}\n",
      f.name, f.fitted ? "fitted" : "not fitted", f.op_dispatch_s * 1e6,
      f.collective_dispatch_s * 1e6, f.step_overhead_s * 1e3, f.host_sync_fraction);
  return out;
}

namespace {

constexpr const char* kPassKeys[3] = {"forward", "backward_input", "backward_weight"};

nlohmann::json op_pass_json(const OpCost& c) {
  return {{"seconds", c.seconds}, {"flops", c.flops}, {"bytes", c.bytes}};
}

}  // namespace

nlohmann::json ops_json(const std::vector<OpCostRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const OpCostRow& r : rows) {
    nlohmann::json j = {{"part", r.part}, {"name", r.name}, {"kind", r.kind}};
    for (int p = 0; p < 3; ++p) j[kPassKeys[p]] = op_pass_json(r.pass[p]);
    list.push_back(std::move(j));
  }
  return {{"rows", list},
          {"note",
           "one micro-batch on one tensor-parallel rank, compute only: communication, host "
           "dispatch and recomputation are not in these rows (see time.breakdown); blocks of one "
           "kind cost the same, so one block of each kind is listed; flash attention's flops are "
           "the unmasked count of the keys it is timed at (the whole sequence; under a sliding "
           "window that the kernel takes, twice the window's pairs per query on the busiest "
           "context-parallel rank) while its time covers the causal half"}};
}

std::string ops_text(const std::vector<OpCostRow>& rows) {
  std::string out =
      "\nOps (one micro-batch on one TP rank, compute only; rate over all passes: TFLOP/s = 1e12 "
      "FLOP/s, GB/s = 1e9 B/s of HBM traffic; flash attention's FLOPs are the unmasked "
      "count of the keys it is timed at (under a sliding window the kernel takes, twice the "
      "window's pairs per query on the busiest context-parallel rank), its time the "
      "causal half's):\n";
  out += fmt::format("  {:<30} {:<16} {:>10} {:>10} {:>10} {:>14}\n", "op", "kind", "fwd us",
                     "bwd-in us", "bwd-w us", "rate");
  std::string part;
  double part_seconds = 0, part_flops = 0;
  const auto close_part = [&] {
    if (part.empty()) return;
    out += fmt::format("  = {}: {:.1f} us", part, part_seconds * 1e6);
    if (part_seconds > 0 && part_flops > 0)
      out += fmt::format(", {:.0f} TFLOP/s", part_flops / part_seconds / 1e12);
    out += "\n";
  };
  for (const OpCostRow& r : rows) {
    if (r.part != part) {
      close_part();
      part = r.part;
      part_seconds = part_flops = 0;
      out += fmt::format("  {}:\n", part);
    }
    double seconds = 0, flops = 0, bytes = 0;
    for (const OpCost& c : r.pass) {
      seconds += c.seconds;
      flops += c.flops;
      bytes += c.bytes;
    }
    part_seconds += seconds;
    part_flops += flops;
    std::string rate = "-";
    if (seconds > 0 && flops > 0)
      rate = fmt::format("{:.0f} TFLOP/s", flops / seconds / 1e12);
    else if (seconds > 0)
      rate = fmt::format("{:.0f} GB/s", bytes / seconds / 1e9);
    const double us[3] = {r.pass[0].seconds * 1e6, r.pass[1].seconds * 1e6,
                          r.pass[2].seconds * 1e6};
    out += fmt::format("  {:<30} {:<16} {:>10.1f} {:>10.1f} {:>10.1f} {:>14}\n", r.name, r.kind,
                       us[0], us[1], us[2], rate);
  }
  close_part();
  return out;
}

}  // namespace shardsim
