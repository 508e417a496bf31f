#include "simulator/cli/import_command.h"

#include <iostream>

#include "reports/output.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/scenario/load.h"

namespace shardsim::cli {

int run_import(const ImportArgs& a) {
  check_outputs({{"-o", a.output}});
  const ImportResult r = a.kind == "deepspeed"
                             ? import_deepspeed(read_json_file(a.config), a.target, a.config)
                             : import_megatron(a.args, a.target);
  // What is written must load: every problem of the imported scenario is reported now (exit 2).
  (void)scenario_from_json(r.scenario, "");
  for (const auto& w : r.warnings) std::cerr << "warning: " << w << "\n";
  write_output(a.output, json_text(r.scenario, 2) + "\n");
  return kExitOk;
}

}  // namespace shardsim::cli
