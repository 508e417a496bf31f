#include "reports/trace.h"

#include <string>

namespace shardsim {

nlohmann::json chrome_trace(const Estimate& e) {
  const int stages = e.plan ? e.plan->pp : 0;
  nlohmann::json events = nlohmann::json::array();
  for (int st = 0; st < stages; ++st) {
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", st},
                      {"tid", 0},
                      {"args", {{"name", "pipeline stage " + std::to_string(st)}}}});
    for (int k = 0; k < kStreamKinds; ++k)
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", st},
                        {"tid", k},
                        {"args", {{"name", stream_name(StreamKind(k))}}}});
  }
  for (const auto& s : e.timeline) {
    // Trace Event Format timestamps and durations are microseconds.
    events.push_back({{"ph", "X"},
                      {"name", s.name},
                      {"cat", s.category},
                      {"pid", s.stage},
                      {"tid", int(s.stream)},
                      {"ts", s.start * 1e6},
                      {"dur", (s.end - s.start) * 1e6}});
  }
  // A plan that cannot be laid out has no timeline: the trace says why instead (so a file from an
  // earlier run is never left to look current).
  nlohmann::json other = {{"step_seconds", e.time ? e.time->step_seconds : 0.0}};
  if (!e.plan) {
    std::string why;
    for (const auto& i : e.infeasible) why += (why.empty() ? "" : "; ") + i.message;
    other["no_timeline"] = "the plan cannot be laid out: " + why;
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}, {"otherData", other}};
}

}  // namespace shardsim
