// Unit tests of reports/gates.cc on hand-made reports: the defects a review of the --check parser
// and the baseline comparison found (issue 11), each an InputError naming what is wrong instead of
// an internal failure or undefined behaviour.
#include "reports/gates.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "reports/step_report.h"
#include "simulator/core/diagnostics.h"
#include "simulator/evaluate/evaluate.h"
#include "simulator/scenario/load.h"

namespace shardsim {
namespace {

const nlohmann::json kReport = {
    {"memory", {{"peak_bytes", 6.5e10}, {"fits", true}}},
    {"compare", {{"variants", {{{"values", {{"tp", 2}}}, {"time", {{"step_seconds", 1.0}}}}}}}}};

std::string error_of(const std::vector<std::string>& exprs) {
  try {
    (void)run_checks(kReport, exprs);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The keys a gate may name on a report of a plan that cannot be built are those a built simulate
// report has: the list in gates.cc must not drift from the report writer.
TEST(gates, PlanlessSectionKeysAreThoseOfABuiltReport) {
  const Scenario s = load_scenario("llama3-8b-8xh100");
  const Expected<Estimate> e = evaluate(s);
  ASSERT_TRUE(e.ok());
  const nlohmann::json report = simulate_report_json(e.value());
  for (const auto& [section, keys] : planless_sections()) {
    std::set<std::string> built;
    for (const auto& [k, v] : report.at(section).items()) built.insert(k);
    EXPECT_EQ(built, keys) << section;
  }
}

TEST(gates, HugeArrayIndexIsAMissingPathNotACrash) {
  // stoul("99999999999999999999") threw std::out_of_range (exit 3).
  const std::string e = error_of({"compare.variants.99999999999999999999.time.step_seconds<1"});
  EXPECT_NE(e.find("the report has no"), std::string::npos) << e;
}

TEST(gates, NonNumericBoundIsNamed) {
  // The message blamed the report's value; the bound "a" is what is wrong.
  const std::string e = error_of({"memory.peak_bytes<\"a\""});
  EXPECT_NE(e.find("is not a number or boolean"), std::string::npos) << e;
  EXPECT_NE(error_of({"memory.peak_bytes<1e400"}), "");          // not a double
  EXPECT_NE(error_of({"memory.peak_bytes<[[[[[[1]]]]]]"}), "");  // an array is no bound
  // A valid check still passes: 6.5e10 < 7e10.
  EXPECT_TRUE(run_checks(kReport, {"memory.peak_bytes<7e10"}).at(0).passed);
}

TEST(gates, MalformedBaselineIsInputError) {
  // baseline["compare"]["variants"] on a const object without the key was undefined behaviour.
  EXPECT_THROW((void)compare_baseline(kReport, {{"compare", nlohmann::json::object()}}, 5),
               InputError);
  EXPECT_THROW((void)compare_baseline(kReport, {{"compare", {{"variants", 3}}}}, 5), InputError);
  EXPECT_THROW((void)compare_baseline(kReport, {{"compare", {{"variants", {1, 2}}}}}, 5),
               InputError);
  // A variant without "values" matches nothing: reported, not a crash.
  const auto out = compare_baseline(kReport, {{"compare", {{"variants", {{{"x", 1}}}}}}}, 5);
  ASSERT_EQ(out.size(), 2u);  // the report's variant not in the baseline, and the reverse
  EXPECT_FALSE(out[0].passed);
  EXPECT_FALSE(out[1].passed);
}

TEST(gates, NonNumericBaselineValueIsSaidSo) {
  // Both present, the baseline's not a number: the message said "present in the report only".
  const auto out = compare_baseline({{"memory", {{"peak_bytes", 1.0}}}},
                                    {{"memory", {{"peak_bytes", "big"}}}}, 5);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].passed);
  EXPECT_NE(out[0].message.find("not a number in the baseline"), std::string::npos)
      << out[0].message;
}

}  // namespace
}  // namespace shardsim
