#include "reports/gates.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>

#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/core/strings.h"

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
  bool positive;  // > 0 in every report that has it (else >= 0: MFU without a known peak is 0)
};
constexpr Metric kMetrics[] = {{"memory.peak_bytes", true, true},
                               {"time.step_seconds", true, true},
                               {"throughput.tokens_per_second", false, true},
                               {"throughput.mfu", false, false}};

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
    // The baseline is user input: a value no report holds is bad input, not a failed gate with
    // a meaningless percentage (found by review, 2026-11-27: "x" failed the gate, -1 and 0 gave
    // +751.78 % and +100.00 %).
    if (!b->is_number() || !std::isfinite(b->get<double>()) || b->get<double>() < 0 ||
        (m.positive && b->get<double>() == 0))
      throw InputError("", fmt::format("--baseline: the baseline's {}{} is {}; a report's is {} "
                                       "number",
                                       prefix, m.path, json_text(*b),
                                       m.positive ? "a positive" : "a non-negative"));
    if (!a->is_number())
      throw std::logic_error(fmt::format("the report's {} is not a number", m.path));
    const double x = a->get<double>(), y = b->get<double>();
    // Per cent, from the ratio: (x - y) / y overflowed to -inf at a baseline of 1e308, and a
    // baseline of 0 printed +100 % for an unbounded change (found by review, 2026-11-28).
    const double change =
        y != 0 ? 100 * (x / y - 1) : (x == 0 ? 0 : std::numeric_limits<double>::infinity());
    const double worse = m.higher_is_worse ? change : -change;
    g.passed = worse <= tol;
    const std::string pct =
        std::isfinite(change) ? fmt::format("{:+.2f} %", change) : std::string("unbounded change");
    g.message = fmt::format("{} (baseline {}, {}{}; tolerance {} % worse)", x, y, pct,
                            worse < 0 ? ", better" : (worse > 0 ? ", worse" : ""), tol);
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

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// An array index of a gate path (digits only, at most 9), or -1.
long index_of(const std::string& part) {
  if (part.empty() || part.size() > 9 ||
      !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stol(part);
}

// The first message of `node`'s feasibility reasons (a plan that cannot be built) or of its errors
// (an invalid compare variant), or "".
std::string first_reason(const nlohmann::json& node) {
  for (const char* list : {"feasibility.reasons", "errors"}) {
    const nlohmann::json* l = find_path(node, list);
    if (l == nullptr || !l->is_array() || l->empty()) continue;
    const auto m = l->front().find("message");
    return m != l->front().end() && m->is_string() ? m->get<std::string>() : json_text(l->front());
  }
  return "";
}

// Why a gate on a missing path fails (exit 1) rather than being bad input (exit 2): the path names
// a key of a built plan's sections (planless_sections) in a part of the report whose plan could not
// be built (the report itself, a compare variant), or a search result past the plans that run.
// std::nullopt: the path is bad input. `command` is the report's command: a memory report never
// has time or throughput.
std::optional<std::string> unbuilt_reason(const nlohmann::json& report, const std::string& path,
                                          std::string_view command) {
  const std::vector<std::string> parts = split_path(path);
  const nlohmann::json* node = &report;
  std::size_t k = 0;  // the part that names the section
  if (parts.size() >= 3 && (parts[0] == "compare" || parts[0] == "search")) {
    const nlohmann::json* list =
        find_path(report, parts[0] + (parts[0] == "compare" ? ".variants" : ".results"));
    const long i = index_of(parts[2]);
    if (list == nullptr || !list->is_array() || i < 0 ||
        parts[1] != (parts[0] == "compare" ? "variants" : "results"))
      return std::nullopt;
    k = 3;
    if (parts[0] == "search") {
      // A result past the plans found, within --top: the search found fewer plans that run. An
      // index past --top is bad input, as a variant past --vary is.
      const nlohmann::json* top = find_path(report, "search.top_k");
      if (std::size_t(i) < list->size() || parts.size() < 4 || top == nullptr ||
          !top->is_number() || double(i) >= top->get<double>())
        return std::nullopt;
      const bool known =
          parts[3] == "rank" || (parts.size() > 4 && [&] {
            const auto sec = planless_sections().find(parts[3]);
            return sec != planless_sections().end() && sec->second.contains(parts[4]);
          }());
      if (!known) return std::nullopt;
      return fmt::format("the search found {} plan{} that run{}", list->size(),
                         list->size() == 1 ? "" : "s", list->size() == 1 ? "s" : "");
    }
    if (std::size_t(i) >= list->size()) return std::nullopt;  // variants are fixed by --vary
    node = &(*list)[std::size_t(i)];
  }
  if (node->contains("plan") || parts.size() < k + 2) return std::nullopt;
  const auto section = planless_sections().find(parts[k]);
  if (section == planless_sections().end() || !section->second.contains(parts[k + 1]))
    return std::nullopt;
  if (k == 0 && command == "memory" && (parts[0] == "time" || parts[0] == "throughput"))
    return std::nullopt;
  const std::string why = first_reason(*node);
  if (why.empty()) return std::nullopt;
  return "the plan cannot be built (" + why + ")";
}

}  // namespace

std::vector<GateOutcome> run_checks(const nlohmann::json& report,
                                    const std::vector<std::string>& exprs,
                                    std::string_view command) {
  std::vector<GateOutcome> out;
  for (const std::string& gate : exprs) {
    // Echoed in messages at most 80 characters long (found by review, 2026-11-29: a 120 KB
    // --check was printed whole); the outcome keeps the whole expression.
    const std::string e = abbreviated(gate);
    std::string expr;
    for (char c : gate)
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
      throw InputError("", fmt::format("--check \"{}\": \"{}\" is not a number or boolean", e,
                                       abbreviated(rhs)));
    const nlohmann::json* value = find_path(report, path);
    if (value == nullptr) {
      // A plan that cannot be built has no plan, memory, time or throughput: its gates fail.
      const std::optional<std::string> why = unbuilt_reason(report, path, command);
      if (!why)
        throw InputError(
            "", fmt::format("--check \"{}\": the report has no \"{}\"", e, abbreviated(path)));
      out.push_back({gate, false, fmt::format("{} is absent: {}", path, *why)});
      continue;
    }
    GateOutcome g;
    g.gate = gate;
    if (value->is_number() && bound.is_number()) {
      g.passed = compare_numbers(value->get<double>(), op, bound.get<double>());
      g.message =
          fmt::format("{} = {}, wanted {} {}", path, value->get<double>(), op, bound.get<double>());
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
