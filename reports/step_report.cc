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
    out += fmt::format("  {:<10} {:>10.4f} s {:>6.1f} %\n", time_category_key(TimeCategory(k)), sec,
                       t.step_seconds > 0 ? 100 * sec / t.step_seconds : 0.0);
  }
  out += fmt::format("\nmemory     peak {:.2f} GiB (2^30 B) on stage {} of {:.2f} GiB: {}\n",
                     mem.peak_bytes / kGiB, mem.peak_stage, mem.capacity_bytes / kGiB,
                     mem.fits ? "fits" : "does NOT fit — " + mem.reason);
  for (const auto& r : e.infeasible)
    out += fmt::format("feasible   no [{}]: {}\n", r.code, r.message);
  return out + warnings_text(e);
}

}  // namespace shardsim
