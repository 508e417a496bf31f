#include "simulator/cli/suite_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "reports/output.h"
#include "reports/suite_report.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/strings.h"
#include "simulator/suite/suite.h"

namespace shardsim::cli {
namespace {

// The groups named by --group, in the order given, each once; InputError naming every unknown one.
std::vector<suite::Group> chosen_groups(const std::vector<std::string>& names) {
  std::vector<suite::Group> out;
  Diagnostics d;
  const auto known = suite::group_names();
  for (const auto& name : names) {
    const auto g = suite::group_from_name(name);
    if (!g) {
      const std::string guess = nearest(name, known);
      d.error("--group",
              fmt::format("unknown group \"{}\"{}; known: {}", name,
                          guess.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", guess),
                          join(known)));
    } else if (std::find(out.begin(), out.end(), *g) == out.end()) {
      out.push_back(*g);
    }
  }
  d.throw_if_any();
  return out;
}

}  // namespace

int run_suite(const SuiteArgs& a) {
  suite::SuiteOptions options;
  options.groups = chosen_groups(a.groups);
  options.mode = a.mode == "analytic" ? Mode::kAnalytic : Mode::kDes;
  const suite::SuiteResult r = suite::run_suite(options);
  if (!a.csv.empty()) write_output(a.csv, suite_report_csv(r));
  write_output(a.output, a.json ? suite_report_json(r).dump(2) + "\n" : suite_report_text(r));
  if (a.check_targets && !r.all_targets_met()) {
    std::cerr << "suite: a target is not met (--check-targets)\n";
    return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace shardsim::cli
