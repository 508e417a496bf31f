#include "reports/gates.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"

namespace shardsim {
namespace {

// The value at dotted `path`, or nullptr.
const nlohmann::json* find_path(const nlohmann::json& root, const std::string& path) {
  const nlohmann::json* at = &root;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? dot : dot - start);
    if (part.empty()) return nullptr;
    if (at->is_object()) {
      const auto it = at->find(part);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else if (at->is_array()) {
      // Digits only; more than 9 of them is past any array a report holds (no stoul, whose
      // out_of_range on "99999999999999999999" would escape as an internal failure).
      if (part.size() > 9 ||
          !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return nullptr;
      const std::size_t i = std::stoul(part);
      if (i >= at->size()) return nullptr;
      at = &(*at)[i];
    } else {
      return nullptr;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return at;
}

bool compare_numbers(double lhs, const std::string& op, double rhs) {
  if (op == "<") return lhs < rhs;
  if (op == "<=") return lhs <= rhs;
  if (op == ">") return lhs > rhs;
  if (op == ">=") return lhs >= rhs;
  if (op == "==") return lhs == rhs;
  return lhs != rhs;  // "!="
}

// One baseline metric: the direction that is worse.
struct Metric {
  const char* path;
  bool higher_is_worse;
};
constexpr Metric kMetrics[] = {{"memory.peak_bytes", true},
                               {"time.step_seconds", true},
                               {"throughput.tokens_per_second", false},
                               {"throughput.mfu", false}};

void compare_section(const nlohmann::json& now, const nlohmann::json& old,
                     const std::string& prefix, double tol, std::vector<GateOutcome>& out) {
  for (const Metric& m : kMetrics) {
    const nlohmann::json* a = find_path(now, m.path);
    const nlohmann::json* b = find_path(old, m.path);
    if (a == nullptr && b == nullptr) continue;  // not in this kind of report
    GateOutcome g;
    g.gate = "baseline " + prefix + m.path;
    if (a == nullptr || b == nullptr) {
      g.message = fmt::format("present in {} only", a == nullptr ? "the baseline" : "the report");
      out.push_back(g);
      continue;
    }
    if (!a->is_number() || !b->is_number()) {
      g.message =
          fmt::format("not a number in {} ({})", a->is_number() ? "the baseline" : "the report",
                      json_text(a->is_number() ? *b : *a));
      out.push_back(g);
      continue;
    }
    const double x = a->get<double>(), y = b->get<double>();
    const double change = y != 0 ? 100 * (x - y) / std::fabs(y) : (x == 0 ? 0 : 100);
    const double worse = m.higher_is_worse ? change : -change;
    g.passed = worse <= tol;
    g.message = fmt::format("{:.6g} (baseline {:.6g}, {:+.2f} %{}; tolerance {} % worse)", x, y,
                            change, worse < 0 ? ", better" : (worse > 0 ? ", worse" : ""), tol);
    out.push_back(g);
  }
}

// root[section][key] as an array of objects, else InputError (a baseline is user input: its
// shape is checked before it is walked).
const nlohmann::json& list_at(const nlohmann::json& root, const char* section, const char* key,
                              const char* who) {
  const nlohmann::json* list = nullptr;
  if (const auto s = root.find(section); s != root.end() && s->is_object())
    if (const auto k = s->find(key); k != s->end()) list = &*k;
  if (list == nullptr || !list->is_array() ||
      !std::all_of(list->begin(), list->end(),
                   [](const nlohmann::json& v) { return v.is_object(); }))
    throw InputError(
        "", fmt::format("--baseline: {}'s {}.{} is not a list of objects", who, section, key));
  return *list;
}

// A compare variant's "values" (null when absent).
const nlohmann::json& values_of(const nlohmann::json& variant) {
  static const nlohmann::json none;
  const auto it = variant.find("values");
  return it == variant.end() ? none : *it;
}

// The command a report comes from, told by its sections: "" for the plan-less report of a
// simulate or memory plan that cannot be built (it fits either), "unknown" for none.
std::string report_kind(const nlohmann::json& j) {
  if (!j.is_object()) return "unknown";
  for (const char* k : {"compare", "search", "collective", "suite"})
    if (j.contains(k)) return k;
  if (j.contains("time")) return "simulate";
  if (j.contains("memory")) return "memory";
  if (j.contains("feasibility")) return "";
  return "unknown";
}

}  // namespace

const std::map<std::string, std::set<std::string>>& planless_sections() {
  static const std::map<std::string, std::set<std::string>> sections = {
      {"plan",
       {"cp", "dp", "ep", "gpus", "micro_batches", "pp", "schedule", "stages", "tp", "vpp"}},
      {"memory",
       {"capacity_bytes", "fits", "host_bytes", "peak_bytes", "peak_pp_stage", "ranks", "reason"}},
      {"time", {"breakdown", "critical_pp_stage", "mode", "stage_end_seconds", "step_seconds"}},
      {"throughput",
       {"flop_convention", "hardware_tflops_per_gpu", "hfu", "mfu", "model_tflops_per_gpu",
        "peak_flops_per_gpu", "tokens_per_second"}}};
  return sections;
}

namespace {

// The first reason of a plan-less report (a plan that cannot be built) when `path` names a key
// of a section such a report lacks (planless_sections: a misspelt key stays bad input); else
// nullptr.
const nlohmann::json* planless_reason(const nlohmann::json& report, const std::string& path) {
  const std::size_t dot = path.find('.');
  const auto section = planless_sections().find(path.substr(0, dot));
  if (report.contains("plan") || section == planless_sections().end() || dot == std::string::npos ||
      !section->second.contains(path.substr(dot + 1, path.find('.', dot + 1) - dot - 1)))
    return nullptr;
  const nlohmann::json* reasons = find_path(report, "feasibility.reasons");
  if (reasons == nullptr || !reasons->is_array() || reasons->empty()) return nullptr;
  return &reasons->front();
}

}  // namespace

std::vector<GateOutcome> run_checks(const nlohmann::json& report,
                                    const std::vector<std::string>& exprs) {
  std::vector<GateOutcome> out;
  for (const std::string& e : exprs) {
    std::string expr;
    for (char c : e)
      if (!std::isspace(static_cast<unsigned char>(c))) expr += c;
    const std::size_t pos = expr.find_first_of("<>=!");
    if (pos == std::string::npos || pos == 0)
      throw InputError("", fmt::format("--check \"{}\": expected PATH OP VALUE with OP one of "
                                       "< <= > >= == != (e.g. memory.peak_bytes<70e9)",
                                       e));
    const std::size_t len = pos + 1 < expr.size() && expr[pos + 1] == '=' ? 2 : 1;
    const std::string path = expr.substr(0, pos), op = expr.substr(pos, len),
                      rhs = expr.substr(pos + len);
    if (op == "=" || op == "!")
      throw InputError(
          "", fmt::format("--check \"{}\": unknown operator \"{}\" (use == or !=)", e, op));
    nlohmann::json bound;
    try {
      bound = parse_json_text(rhs, "--check");
    } catch (const InputError&) {
    }
    if (!bound.is_number() && !bound.is_boolean())
      throw InputError("",
                       fmt::format("--check \"{}\": \"{}\" is not a number or boolean", e, rhs));
    const nlohmann::json* value = find_path(report, path);
    if (value == nullptr) {
      // A plan that cannot be built has no plan, memory, time or throughput: its gates fail.
      const nlohmann::json* why = planless_reason(report, path);
      if (why == nullptr)
        throw InputError("", fmt::format("--check \"{}\": the report has no \"{}\"", e, path));
      const auto m = why->find("message");
      out.push_back({e, false,
                     fmt::format("{} is absent: the plan cannot be built ({})", path,
                                 m != why->end() && m->is_string() ? m->get<std::string>()
                                                                   : json_text(*why))});
      continue;
    }
    GateOutcome g;
    g.gate = e;
    if (value->is_number() && bound.is_number()) {
      g.passed = compare_numbers(value->get<double>(), op, bound.get<double>());
      g.message = fmt::format("{} = {:.6g}, wanted {} {:.6g}", path, value->get<double>(), op,
                              bound.get<double>());
    } else if (value->is_boolean() && bound.is_boolean() && (op == "==" || op == "!=")) {
      g.passed = (*value == bound) == (op == "==");
      g.message = fmt::format("{} = {}, wanted {} {}", path, value->dump(), op, bound.dump());
    } else {
      throw InputError("", fmt::format("--check \"{}\": \"{}\" is {} ({}); compare numbers with "
                                       "< <= > >= == != and booleans with == !=",
                                       e, path, json_type_name(*value), json_text(*value)));
    }
    out.push_back(g);
  }
  return out;
}

std::vector<GateOutcome> compare_baseline(const nlohmann::json& report,
                                          const nlohmann::json& baseline, double tol) {
  std::vector<GateOutcome> out;
  const std::string kind = report_kind(report), old_kind = report_kind(baseline);
  const bool step = kind.empty() || kind == "simulate" || kind == "memory";
  const bool same = kind == old_kind || (step && old_kind.empty()) ||
                    (kind.empty() && (old_kind == "simulate" || old_kind == "memory"));
  if (!same || old_kind == "unknown")
    throw InputError("", "--baseline: the baseline is not a report of the same command");
  const bool compare = kind == "compare", search = kind == "search";
  if (compare) {
    const auto& now = list_at(report, "compare", "variants", "the report");
    const auto& old = list_at(baseline, "compare", "variants", "the baseline");
    for (const auto& v : now) {
      const std::string name = json_text(values_of(v));
      const nlohmann::json* match = nullptr;
      for (const auto& w : old)
        if (values_of(w) == values_of(v)) match = &w;
      if (match == nullptr) {
        out.push_back({"baseline variant " + name, false, "not in the baseline"});
        continue;
      }
      compare_section(v, *match, "variant " + name + " ", tol, out);
    }
    for (const auto& w : old) {
      bool found = false;
      for (const auto& v : now) found |= values_of(v) == values_of(w);
      if (!found)
        out.push_back({"baseline variant " + json_text(values_of(w)), false,
                       "in the baseline, not in the report"});
    }
  } else if (search) {
    const auto& now = list_at(report, "search", "results", "the report");
    const auto& old = list_at(baseline, "search", "results", "the baseline");
    if (now.empty() || old.empty())
      out.push_back({"baseline search.results.0", now.empty() == old.empty(),
                     now.empty() && old.empty() ? "no plan runs in either"
                                                : "a plan runs in only one of them"});
    else
      compare_section(now[0], old[0], "best plan ", tol, out);
  } else {
    compare_section(report, baseline, "", tol, out);
  }
  return out;
}

std::string gates_text(const std::vector<GateOutcome>& outcomes) {
  std::string out;
  for (const auto& g : outcomes)
    out += fmt::format("check {}: {}: {}\n", g.passed ? "passed" : "FAILED", g.gate, g.message);
  return out;
}

}  // namespace shardsim
