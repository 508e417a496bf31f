// Golden reports of shipped examples, compared field by field with tolerances. Every expected
// value in tests/golden/*.expected.json is derived by hand in its "derivation" string.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "reports/memory_report.h"
#include "simulator/evaluate/evaluate.h"
#include "simulator/scenario/load.h"

namespace shardsim {
namespace {

nlohmann::json memory_report(const std::string& example) {
  const Scenario s = load_scenario(example);
  const Expected<Estimate> e = evaluate(s, {Mode::kMemory});
  if (!e.ok()) {  // fail the test cleanly instead of dereferencing a missing Estimate
    ADD_FAILURE() << example << ": " << e.errors().format();
    return nlohmann::json::object();
  }
  return memory_report_json(*e);
}

class Golden : public testing::TestWithParam<std::string> {};

TEST_P(Golden, FieldsMatchDerivations) {
  const auto path = std::filesystem::path(SHARDSIM_SOURCE_DIR) / "tests/golden" / GetParam();
  const auto golden = read_json_file(path.string());
  const auto report = memory_report(golden["scenario"].get<std::string>());
  ASSERT_FALSE(golden["checks"].empty());
  for (const auto& c : golden["checks"]) {
    const auto ptr = nlohmann::json::json_pointer(c["pointer"].get<std::string>());
    ASSERT_TRUE(report.contains(ptr)) << c["pointer"];
    const auto& got = report[ptr];
    const auto& want = c["expected"];
    if (want.is_boolean()) {
      EXPECT_EQ(got, want) << c["pointer"] << ": " << c["derivation"];
      continue;
    }
    const double w = want.get<double>(), g = got.get<double>();
    const double tol = c["rel_tol"].get<double>() * std::fabs(w);
    EXPECT_NEAR(g, w, tol) << c["pointer"] << ": " << c["derivation"];
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, Golden,
                         testing::Values("llama3-8b-8xh100.expected.json",
                                         "gpt3-175b-1536xa100.expected.json",
                                         "mixtral-8x7b-16xh100.expected.json"));

}  // namespace
}  // namespace shardsim
