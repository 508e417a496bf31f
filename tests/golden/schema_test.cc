// Reports conform to their JSON schema (reports/schemas). A small checker of the schema features
// the shipped schemas use: type, required, properties, items, const.
#include <gtest/gtest.h>

#include <filesystem>

#include "reports/memory_report.h"
#include "reports/step_report.h"
#include "simulator/evaluate/evaluate.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/presets.h"

namespace shardsim {
namespace {

bool has_type(const nlohmann::json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  return false;
}

void check(const nlohmann::json& schema, const nlohmann::json& v, const std::string& at,
           std::vector<std::string>& errors) {
  if (schema.contains("type") && !has_type(v, schema["type"].get<std::string>()))
    errors.push_back(at + ": not of type " + schema["type"].get<std::string>());
  if (schema.contains("const") && v != schema["const"]) errors.push_back(at + ": not the const");
  if (schema.contains("required"))
    for (const auto& key : schema["required"])
      if (!v.contains(key.get<std::string>()))
        errors.push_back(at + ": missing " + key.get<std::string>());
  if (schema.contains("properties") && v.is_object())
    for (const auto& [key, sub] : schema["properties"].items())
      if (v.contains(key)) check(sub, v[key], at + "/" + key, errors);
  if (schema.contains("items") && v.is_array())
    for (std::size_t i = 0; i < v.size(); ++i)
      check(schema["items"], v[i], at + "/" + std::to_string(i), errors);
}

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
