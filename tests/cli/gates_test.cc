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

// A baseline value no report can hold is bad input naming it (exit 2). Found by review
// (2026-11-27): "big" failed the gate (exit 1), and -1 and 0 failed it with +751.78 % and
// +100.00 %, percentages against a value that means nothing.
TEST(gates, ABaselineValueNoReportHoldsIsInputError) {
  const nlohmann::json report = {{"time", {{"step_seconds", 2.0}}}, {"throughput", {{"mfu", 0.0}}}};
  for (const nlohmann::json& bad : {nlohmann::json("big"), nlohmann::json(-1), nlohmann::json(0)}) {
    try {
      nlohmann::json baseline = report;
      baseline["time"]["step_seconds"] = bad;
      (void)compare_baseline(report, baseline, 5);
      ADD_FAILURE() << "accepted " << bad.dump();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("time.step_seconds"), std::string::npos) << e.what();
    }
  }
  // MFU may be 0 (a GPU without a known peak): a baseline of 0 against 0 is no change.
  const auto out = compare_baseline(report, report, 5);
  ASSERT_EQ(out.size(), 2u);  // step_seconds and mfu
  EXPECT_TRUE(out[0].passed && out[1].passed) << out[0].message << "; " << out[1].message;
  nlohmann::json negative = report;
  negative["throughput"]["mfu"] = -0.5;
  EXPECT_THROW((void)compare_baseline(report, negative, 5), InputError);
}

// Found by review (2026-11-28): a baseline step of 1e308 printed "-inf %" ((x - y) overflows),
// and a baseline MFU of 0 against a positive one printed "+100.00 %" for an unbounded change.
TEST(gates, ExtremeBaselinesPrintFinitePercentagesOrSayUnbounded) {
  const nlohmann::json report = {{"time", {{"step_seconds", 2.0}}}, {"throughput", {{"mfu", 0.4}}}};
  nlohmann::json baseline = report;
  baseline["time"]["step_seconds"] = 1e308;  // 2 / 1e308 - 1 = -1: -100 %, better
  baseline["throughput"]["mfu"] = 0.0;       // 0 -> 0.4: no finite percentage, better
  const auto out = compare_baseline(report, baseline, 5);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].passed) << out[0].message;
  EXPECT_NE(out[0].message.find("-100.00 %, better"), std::string::npos) << out[0].message;
  EXPECT_TRUE(out[1].passed) << out[1].message;
  EXPECT_NE(out[1].message.find("unbounded change, better"), std::string::npos) << out[1].message;
  for (const auto& o : out) EXPECT_EQ(o.message.find("inf"), std::string::npos) << o.message;
}

// Found by review (2026-11-27): a gate on a part of the report whose plan could not be built is
// a failed gate (exit 1) wherever that part is: the report itself (simulate), a compare variant
// (infeasible or invalid), or a search result past the plans found. A key that part could never
// have stays bad input: a memory report has no time or throughput, a misspelt key is misspelt.
TEST(gates, UnbuiltPartsFailTheirGates) {
  const nlohmann::json planless = {
      {"feasibility", {{"feasible", false}, {"reasons", {{{"message", "m not a multiple"}}}}}}};
  const auto first = [](const nlohmann::json& report, const std::string& expr,
                        std::string_view command) {
    return run_checks(report, {expr}, command).at(0);
  };
  const GateOutcome g = first(planless, "time.step_seconds<7", "simulate");
  EXPECT_FALSE(g.passed);
  EXPECT_NE(g.message.find("m not a multiple"), std::string::npos) << g.message;
  EXPECT_FALSE(first(planless, "memory.fits==true", "memory").passed);
  EXPECT_THROW((void)run_checks(planless, {"time.step_seconds<7"}, "memory"), InputError);
  EXPECT_THROW((void)run_checks(planless, {"memory.fitz==true"}, "memory"), InputError);

  nlohmann::json c = {
      {"compare",
       {{"variants",
         {{{"status", "infeasible"}, {"values", {{"b", 12}}}},
          {{"status", "invalid"},
           {"values", {{"tp", 3}}},
           {"errors", {{{"message", "8 GPUs are not divisible by 3"}}}}},
          {{"status", "ok"}, {"plan", {{"tp", 1}}}, {"time", {{"step_seconds", 2.0}}}}}}}}};
  c["compare"]["variants"][0]["feasibility"] = planless["feasibility"];
  EXPECT_FALSE(first(c, "compare.variants.0.time.step_seconds<100", "compare").passed);
  const GateOutcome inv = first(c, "compare.variants.1.memory.fits==true", "compare");
  EXPECT_FALSE(inv.passed);
  EXPECT_NE(inv.message.find("not divisible by 3"), std::string::npos) << inv.message;
  EXPECT_TRUE(first(c, "compare.variants.2.time.step_seconds<100", "compare").passed);
  EXPECT_THROW((void)run_checks(c, {"compare.variants.3.time.step_seconds<1"}, "compare"),
               InputError);  // no such variant: the variants are fixed by --vary
  EXPECT_THROW((void)run_checks(c, {"compare.variants.0.time.step<1"}, "compare"), InputError);

  const nlohmann::json search = {
      {"search", {{"results", nlohmann::json::array()}, {"top_k", 10}, {"feasible", 0}}}};
  const GateOutcome sg = first(search, "search.results.0.memory.fits==true", "search");
  EXPECT_FALSE(sg.passed);
  EXPECT_NE(sg.message.find("found 0 plans"), std::string::npos) << sg.message;
  EXPECT_THROW((void)run_checks(search, {"search.results.0.memory.fitz==true"}, "search"),
               InputError);
  // Past --top (10 here) is bad input, as a variant past --vary is (found by the diff review).
  EXPECT_THROW((void)run_checks(search, {"search.results.10.memory.fits==true"}, "search"),
               InputError);
}

// A failed gate prints the report's value in full: 6 significant digits made
// "x = 6.53903, wanted != 6.53903" look contradictory.
TEST(gates, ValuesArePrintedInFull) {
  const nlohmann::json r = {{"time", {{"step_seconds", 6.539025753914599}}}};
  const GateOutcome g = run_checks(r, {"time.step_seconds!=6.539025753914598"}).at(0);
  EXPECT_NE(g.message.find("6.539025753914599"), std::string::npos) << g.message;
  // And a baseline comparison, which printed 6 significant digits until 2026-11-27 (found by
  // review: "5.45842e+10 (baseline 5.45842e+10, ...)" for two different byte counts).
  const nlohmann::json base = {{"time", {{"step_seconds", 6.539025753914598}}}};
  std::string step;
  for (const auto& o : compare_baseline(r, base, 1.0))
    if (o.gate.find("time.step_seconds") != std::string::npos) step = o.message;
  EXPECT_NE(step.find("6.539025753914599 (baseline 6.539025753914598"), std::string::npos) << step;
}

}  // namespace
}  // namespace shardsim
