// Reports conform to their JSON schema (reports/schemas), with the small checker of
// tests/common/json_schema_check.h.
#include <gtest/gtest.h>

#include <filesystem>

#include "reports/memory_report.h"
#include "reports/step_report.h"
#include "simulator/evaluate/evaluate.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/presets.h"
#include "tests/common/json_schema_check.h"

namespace shardsim {
namespace {

using testing_schema::check;

TEST(MemoryReportSchema, EveryExampleConforms) {
  const auto schema = read_json_file(std::string(SHARDSIM_SOURCE_DIR) +
                                     "/reports/schemas/memory-report.schema.json");
  for (const auto& name : preset_names(PresetKind::kExample)) {
    const Scenario s = load_scenario(name);
    const Expected<Estimate> e = evaluate(s, {Mode::kMemory});
    ASSERT_TRUE(e.ok()) << name;
    const nlohmann::json report = memory_report_json(*e);
    std::vector<std::string> errors;
    check(schema, report, "", errors);
    EXPECT_TRUE(errors.empty()) << name << ": " << errors.front();
  }
}

TEST(SimulateReportSchema, EveryExampleConformsInBothModes) {
  const auto schema = read_json_file(std::string(SHARDSIM_SOURCE_DIR) +
                                     "/reports/schemas/simulate-report.schema.json");
  for (const auto& name : preset_names(PresetKind::kExample)) {
    const Scenario s = load_scenario(name);
    for (Mode mode : {Mode::kDes, Mode::kAnalytic}) {
      const Expected<Estimate> e = evaluate(s, {mode});
      ASSERT_TRUE(e.ok()) << name;
      const nlohmann::json report = simulate_report_json(*e);
      std::vector<std::string> errors;
      check(schema, report, "", errors);
      EXPECT_TRUE(errors.empty()) << name << " " << mode_name(mode) << ": " << errors.front();
    }
  }
}

TEST(MemoryReportSchema, CheckerRejectsAMissingKey) {
  // The checker itself must fail on a report lacking a required key.
  const auto schema = nlohmann::json::parse(R"({"type":"object","required":["a"]})");
  std::vector<std::string> errors;
  check(schema, nlohmann::json::object(), "", errors);
  EXPECT_EQ(errors.size(), 1u);
}

}  // namespace
}  // namespace shardsim
