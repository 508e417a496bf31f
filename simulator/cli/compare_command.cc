#include "simulator/cli/compare_command.h"

#include <thread>

#include "reports/compare_report.h"
#include "reports/html_report.h"
#include "reports/output.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/evaluate/variants.h"

namespace shardsim::cli {

int run_compare(const CompareArgs& a) {
  check_outputs(outputs_of(a.common, {{"--csv", a.csv}}), inputs_of(a.common));
  std::vector<VaryAxis> axes;
  for (const auto& v : a.vary) axes.push_back(parse_vary(v));
  const int threads =
      a.threads > 0 ? a.threads : std::max(1, int(std::thread::hardware_concurrency()));
  const Comparison c = compare_variants(a.common.scenario, a.common.overrides, std::move(axes),
                                        a.mode == "des" ? Mode::kDes : Mode::kAnalytic, threads);
  for (const Variant& v : c.variants)
    if (v.scenario)
      check_outputs_not_inputs(outputs_of(a.common, {{"--csv", a.csv}}), v.scenario->files_read);
  return write_report_with_gates(
      a.common, "compare", compare_report_json(c, a.common.scenario, a.common.overrides),
      compare_report_text(c, a.common.scenario), [&] { return compare_html(c, a.common.scenario); },
      [&] {
        return a.csv.empty() ? OutputList{} : OutputList{{a.csv, compare_report_csv(c)}};
      });
}

}  // namespace shardsim::cli
