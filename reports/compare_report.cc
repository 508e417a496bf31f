#include "reports/compare_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "reports/build_info.h"
#include "reports/report_common.h"
#include "reports/step_report.h"
#include "simulator/core/units.h"
#include "simulator/scenario/overrides.h"

namespace shardsim {
namespace {

// A --vary value as the scenario reads it: JSON when it parses, else the bare string.
nlohmann::json value_json(const std::string& value) {
  nlohmann::json holder = nlohmann::json::object();
  apply_override(holder, "v=" + value);
  return holder["v"];
}

// The first reason a variant shows: its first input error or infeasibility.
std::string reason(const Variant& v) {
  if (v.invalid()) {
    const Diagnostic& d = v.errors.front();
    return d.path.empty() ? d.message : d.path + ": " + d.message;
  }
  if (v.estimate && !v.estimate->feasible()) {
    const Infeasibility& r = v.estimate->infeasible.front();
    return r.code + ": " + r.message;
  }
  return "";
}

}  // namespace

std::string variant_status(const Variant& v) {
  if (v.invalid()) return "invalid";
  return v.estimate && v.estimate->feasible() ? "ok" : "infeasible";
}

nlohmann::json compare_report_json(const Comparison& c, const std::string& scenario,
                                   const std::vector<std::string>& overrides) {
  nlohmann::json j;
  j["schema_version"] = kReportSchemaVersion;
  j["tool_version"] = tool_version();
  j["build"] = build_json();
  j["scenario"] = scenario;
  nlohmann::json vary = nlohmann::json::array();
  for (const auto& a : c.axes) {
    nlohmann::json values = nlohmann::json::array();
    for (const auto& v : a.values) values.push_back(value_json(v));
    vary.push_back({{"key", a.key}, {"values", values}});
  }
  nlohmann::json variants = nlohmann::json::array();
  int ok = 0, infeasible = 0, invalid = 0;
  for (const Variant& v : c.variants) {
    nlohmann::json row;
    nlohmann::json values = nlohmann::json::object();
    for (std::size_t a = 0; a < c.axes.size(); ++a) values[c.axes[a].key] = value_json(v.values[a]);
    row["values"] = values;
    const std::string status = variant_status(v);
    row["status"] = status;
    (status == "ok" ? ok : status == "infeasible" ? infeasible : invalid)++;
    if (v.invalid()) {
      nlohmann::json errors = nlohmann::json::array();
      for (const auto& d : v.errors) errors.push_back({{"path", d.path}, {"message", d.message}});
      row["errors"] = errors;
    } else {
      const nlohmann::json full = simulate_report_json(*v.estimate);
      for (const char* k : {"plan", "memory", "time", "throughput", "feasibility", "warnings"})
        if (full.contains(k)) row[k] = full[k];
    }
    variants.push_back(std::move(row));
  }
  j["compare"] = {{"mode", mode_name(c.mode)},
                  {"overrides", overrides},
                  {"vary", vary},
                  {"counts", {{"ok", ok}, {"infeasible", infeasible}, {"invalid", invalid}}},
                  {"variants", variants}};
  return j;
}

std::string compare_report_text(const Comparison& c, const std::string& scenario) {
  std::vector<std::size_t> width;
  for (const auto& a : c.axes) {
    std::size_t w = a.key.size();
    for (const auto& v : a.values) w = std::max(w, v.size());
    width.push_back(w);
  }
  std::string out =
      fmt::format("compare  {}: {} variant(s), {} model\n", scenario, c.variants.size(),
                  c.mode == Mode::kDes ? "discrete-event" : "analytic");
  out +=
      "memory: peak per GPU in GiB (2^30 B); step in seconds; MFU in the Megatron convention\n\n";
  for (std::size_t a = 0; a < c.axes.size(); ++a)
    out += fmt::format("{:<{}}  ", c.axes[a].key, width[a]);
  out += fmt::format("{:>10} {:>10} {:>5} {:>10} {:>11} {:>6}  {}\n", "peak GiB", "of GiB", "fits",
                     "step s", "tokens/s", "MFU %", "status");
  for (const Variant& v : c.variants) {
    for (std::size_t a = 0; a < c.axes.size(); ++a)
      out += fmt::format("{:<{}}  ", v.values[a], width[a]);
    const Estimate* e = v.estimate ? &*v.estimate : nullptr;
    if (e && e->plan) {
      const MemoryEstimate& m = *e->memory;
      out += fmt::format("{:>10.2f} {:>10.2f} {:>5}", m.peak_bytes / kGiB, m.capacity_bytes / kGiB,
                         m.fits ? "yes" : "no");
      if (e->time)
        out += fmt::format(" {:>10.4f} {:>11.4g} {:>6.1f}", e->time->step_seconds,
                           e->time->throughput.tokens_per_second, 100 * e->time->throughput.mfu);
      else
        out += fmt::format(" {:>10} {:>11} {:>6}", "-", "-", "-");
    } else {
      out += fmt::format("{:>10} {:>10} {:>5} {:>10} {:>11} {:>6}", "-", "-", "-", "-", "-", "-");
    }
    const std::string why = reason(v);
    out += "  " + variant_status(v) + (why.empty() ? "" : " (" + why + ")") + "\n";
  }
  int ok = 0;
  for (const Variant& v : c.variants) ok += variant_status(v) == "ok";
  out += fmt::format("\n{} of {} variant(s) run; the others give their reason\n", ok,
                     c.variants.size());
  // The variants' warnings (an unfitted profile or network, and the strategy's: groups that sit
  // differently on the nodes, ...), each once with how many variants it concerns, as simulate's
  // text ends with them (found by README audits, 2026-11-29: they were in the JSON's variants
  // only). An evaluated variant's estimate holds its scenario's warnings and its strategy's.
  std::vector<std::pair<std::string, std::size_t>> warned;
  for (const Variant& v : c.variants)
    if (v.scenario)
      for (const auto& w : v.estimate ? v.estimate->warnings : v.scenario->warnings) {
        auto it = std::ranges::find(warned, w, &std::pair<std::string, std::size_t>::first);
        if (it == warned.end())
          warned.emplace_back(w, 1);
        else
          ++it->second;
      }
  for (const auto& [w, n] : warned)
    out += fmt::format("warning ({} of {} variant(s)): {}\n", n, c.variants.size(), w);
  return out;
}

std::string compare_report_csv(const Comparison& c) {
  std::string out;
  for (const auto& a : c.axes) out += csv_quoted(a.key) + ",";
  out += "status,peak_bytes,capacity_bytes,fits,step_seconds,tokens_per_second,mfu,hfu,reason\n";
  for (const Variant& v : c.variants) {
    for (const auto& value : v.values) out += csv_quoted(value) + ",";
    const Estimate* e = v.estimate ? &*v.estimate : nullptr;
    const bool plan = e && e->plan;
    const bool time = plan && e->time;
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", variant_status(v),
                       plan ? csv_number(e->memory->peak_bytes) : "",
                       plan ? csv_number(e->memory->capacity_bytes) : "",
                       plan ? (e->memory->fits ? "true" : "false") : "",
                       time ? csv_number(e->time->step_seconds) : "",
                       time ? csv_number(e->time->throughput.tokens_per_second) : "",
                       time ? csv_number(e->time->throughput.mfu) : "",
                       time ? csv_number(e->time->throughput.hfu) : "", csv_quoted(reason(v)));
  }
  return out;
}

}  // namespace shardsim
