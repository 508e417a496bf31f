// End-to-end tests of `shardsim compare`: the cross product, each variant equal to `simulate
// --set` of its values, determinism over thread counts, CSV, and bad input. Helpers: cli_runner.h.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace {

using namespace cli_test;

// The README example (llama3-8b on 8 H100s, tp 2) over ZeRO 0..3 x tp 1, 2, 3: 12 variants, the
// first key varying slowest. tp = 3 does not divide the 8 GPUs: those three are invalid.
const std::vector<std::string> kCompare = {
    "compare", kExample, "--vary", "parallel.zero=0,1,2,3", "--vary", "parallel.tp=1,2,3"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(cli_compare, EveryVariantIsWhatSimulateGivesForItsValues) {
  const Result r = shardsim(with(kCompare, {"--json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = parse_report(r);
  const json& variants = j["compare"]["variants"];
  ASSERT_EQ(variants.size(), 12u);  // 4 x 3
  int ok = 0, infeasible = 0, invalid = 0;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const json& v = variants[i];
    // First key slowest: variant i has zero = i / 3 and tp = 1 + i % 3.
    const int zero = int(i / 3), tp = int(1 + i % 3);
    EXPECT_EQ(v["values"]["parallel.zero"], zero);
    EXPECT_EQ(v["values"]["parallel.tp"], tp);
    const std::string status = v["status"];
    if (tp == 3) {
      EXPECT_EQ(status, "invalid");
      EXPECT_EQ(v["errors"][0]["path"], "/parallel") << v.dump();
      ++invalid;
      continue;
    }
    std::string set_zero = "parallel.zero=", set_tp = "parallel.tp=";
    set_zero += std::to_string(zero);
    set_tp += std::to_string(tp);
    const Result sim =
        shardsim({"simulate", kExample, "--json", "--set", set_zero, "--set", set_tp});
    ASSERT_EQ(sim.exit_code, 0) << sim.err;
    const json s = parse_report(sim);
    // The same evaluation: identical numbers, not merely close.
    EXPECT_EQ(v["time"]["step_seconds"], s["time"]["step_seconds"]) << i;
    EXPECT_EQ(v["memory"]["peak_bytes"], s["memory"]["peak_bytes"]) << i;
    EXPECT_EQ(v["throughput"]["mfu"], s["throughput"]["mfu"]) << i;
    EXPECT_EQ(v["feasibility"], s["feasibility"]) << i;
    const bool fits = s["memory"]["fits"].get<bool>();
    EXPECT_EQ(status, fits ? "ok" : "infeasible") << i;
    (fits ? ok : infeasible)++;
  }
  EXPECT_EQ(j["compare"]["counts"]["ok"], ok);
  EXPECT_EQ(j["compare"]["counts"]["infeasible"], infeasible);
  EXPECT_EQ(j["compare"]["counts"]["invalid"], invalid);
  EXPECT_EQ(j["compare"]["mode"], "des");
  EXPECT_FALSE(has_null(j));
}

TEST(cli_compare, SameOutputWhateverTheThreadCount) {
  const Result one = shardsim(with(kCompare, {"--json", "--threads", "1"}));
  const Result two = shardsim(with(kCompare, {"--json", "--threads", "2"}));
  const Result four = shardsim(with(kCompare, {"--json", "--threads", "4"}));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, two.out);
  EXPECT_EQ(one.out, four.out);
  const Result text1 = shardsim(with(kCompare, {"--threads", "1"}));
  const Result text2 = shardsim(with(kCompare, {"--threads", "2"}));
  EXPECT_EQ(text1.out, text2.out);
}

TEST(cli_compare, TextTableAndCsvHaveOneRowPerVariant) {
  const fs::path csv = scratch_dir() / "compare.csv";
  const Result r = shardsim(with(kCompare, {"--mode", "analytic", "--csv", csv.string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "GiB (2^30 B)")) << r.out;  // the unit is stated
  EXPECT_TRUE(contains(r.out, "invalid (/parallel:")) << r.out;
  const std::vector<std::string> rows = lines_of(read_file(csv));
  ASSERT_EQ(rows.size(), 13u);  // header + 12 variants
  EXPECT_EQ(rows[0],
            "\"parallel.zero\",\"parallel.tp\",status,peak_bytes,capacity_bytes,fits,step_seconds,"
            "tokens_per_second,mfu,hfu,reason");
  EXPECT_TRUE(rows[1].rfind("\"0\",\"1\",", 0) == 0) << rows[1];
  EXPECT_TRUE(contains(rows[3], ",invalid,,,,,,,,")) << rows[3];  // zero 0, tp 3
  EXPECT_FALSE(has_nan_or_inf(read_file(csv)));
}

// The text names the scenario by its `name` (default: the file name without .json), as the
// other reports do; it printed the argument, a path (found by README audit, 2026-11-29).
TEST(cli_compare, TheTextNamesTheScenario) {
  const fs::path file = scratch_dir() / "unnamed_compare.json";
  {
    std::ofstream out(file);
    out << R"({"model": {"preset": "llama3-8b"}, "training": {"seq_len": 1024, "global_batch": 8},
               "cluster": {"gpu": "h100-sxm"}})";
  }
  const Result r = shardsim({"compare", file.string(), "--vary", "parallel.zero=0,1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("compare  unnamed_compare: 2 variant(s)")) << r.out;
  const Result named =
      shardsim({"compare", file.string(), "--vary", "parallel.zero=0,1", "--set", "name=my-run"});
  EXPECT_TRUE(named.out.starts_with("compare  my-run: 2 variant(s)")) << named.out;
  // Varying the name itself: no one name stands for the scenario, so the argument does.
  const Result varied = shardsim({"compare", file.string(), "--vary", "name=a,b"});
  EXPECT_TRUE(varied.out.starts_with("compare  " + file.string() + ": 2 variant(s)")) << varied.out;
}

// An unfitted profile or network is named in the text too, once, with the variants it concerns
// (found by README audit, 2026-11-29: only each variant's JSON said so). b200 and its dgx-b200
// network are datasheet presets (`presets`: not "Fitted by shardsim fit").
TEST(cli_compare, TheTextWarnsOfUnfittedProfiles) {
  const Result r =
      shardsim({"compare", kExample, "--mode", "analytic", "--vary", "cluster.gpu=h100-sxm,b200"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "warning (1 of 2 variant(s)): hardware profile 'b200' is not fitted"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "warning (1 of 2 variant(s)): network 'dgx-b200' is not fitted"))
      << r.out;
  const Result search = shardsim({"search", kExample, "--top", "1", "--set", "cluster.gpu=b200"});
  ASSERT_EQ(search.exit_code, 0) << search.err;
  EXPECT_TRUE(contains(search.out, "\nwarning: hardware profile 'b200' is not fitted"))
      << search.out;
}

// A plan's own warnings reach the text too (found by README audit, 2026-11-29: only the JSON had
// them). On 3 nodes of 8 GPUs, tp 2 x dp 3 x pp 4: the dp groups span 2 x 3 = 6 ranks, which do
// not tile a node of 8 ({6..11} crosses), and the pp groups' stride 6 neither divides 8 nor
// reaches it (Scenario.GroupsThatSitDifferentlyOnTheNodesAreWarnedAbout). compare names the
// variants each concerns; search the ranks.
TEST(cli_compare, ThePlansWarningsAreInTheText) {
  const std::vector<std::string> setup = {
      "--set", "cluster.nodes=3",          "--set", "parallel.tp=2", "--set", "parallel.dp=3",
      "--set", "training.global_batch=48", "--set", "parallel.pp=4"};
  const auto with_setup = [&](std::vector<std::string> args) {
    args.insert(args.end(), setup.begin(), setup.end());
    return shardsim(args);
  };
  const Result r =
      with_setup({"compare", kExample, "--mode", "analytic", "--vary", "parallel.zero=0,1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out,
                       "warning (2 of 2 variant(s)): the parallel.dp groups (3 members 2 "
                       "ranks apart"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "warning (2 of 2 variant(s)): the parallel.pp groups")) << r.out;
  // tp, dp and pp set with --set are pinned, so both plans found have these groups.
  const Result s = with_setup({"search", kExample, "--top", "2", "--set", "parallel.zero=1",
                               "--set", "training.micro_batch=1"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_TRUE(contains(s.out,
                       "\nwarning (ranks 1, 2): the parallel.dp groups (3 members 2 ranks "
                       "apart"))
      << s.out;
}

TEST(cli_compare, BadVaryArgumentsExitTwoNamingTheProblem) {
  const Result no_eq = shardsim({"compare", kExample, "--vary", "parallel.zero"});
  EXPECT_EQ(no_eq.exit_code, 2);
  EXPECT_TRUE(contains(no_eq.err, "KEY=V1,V2")) << no_eq.err;
  const Result empty = shardsim({"compare", kExample, "--vary", "parallel.zero=0,,2"});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_TRUE(contains(empty.err, "is empty")) << empty.err;
  const Result twice =
      shardsim({"compare", kExample, "--vary", "parallel.zero=0,1", "--vary", "parallel.zero=2"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_TRUE(contains(twice.err, "varied twice")) << twice.err;
  // A value listed twice (1 and 1.0 are one JSON value) gave two identical variants (found by
  // review, 2026-11-28).
  const Result repeat = shardsim({"compare", kExample, "--vary", "parallel.zero=1,1.0"});
  EXPECT_EQ(repeat.exit_code, 2);
  EXPECT_TRUE(contains(repeat.err, "value 2 of parallel.zero (1.0) repeats value 1")) << repeat.err;
  // An unknown key makes every variant invalid: nothing to compare, the key is named.
  const Result typo = shardsim({"compare", kExample, "--vary", "parallel.zeor=0,1"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_TRUE(has_error_line(typo.err, "/parallel/zeor", "")) << typo.err;
  const Result none = shardsim({"compare", kExample});
  EXPECT_EQ(none.exit_code, 2);
  // A malformed JSON value names --vary and the value (it was reported as "--set v").
  const Result malformed = shardsim({"compare", kExample, "--vary", "parallel.tp=2,[["});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_TRUE(contains(malformed.err, "value 2 of parallel.tp ([[) is not valid JSON"))
      << malformed.err;
  EXPECT_FALSE(contains(malformed.err, "--set v")) << malformed.err;
  // Above the variant limit (4096): 65 x 65 = 4225.
  std::string many = "training.seq_len=", more = "training.global_batch=";
  for (int k = 1; k <= 65; ++k) {
    if (k > 1) {
      many += ',';
      more += ',';
    }
    many += std::to_string(128 * k);
    more += std::to_string(8 * k);
  }
  const Result big = shardsim({"compare", kExample, "--vary", many, "--vary", more});
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_TRUE(contains(big.err, "exceeds 4096")) << big.err;
  EXPECT_TRUE(big.out.empty());  // nothing half written
  // Every variant invalid: each distinct error once, naming its variant (found by review,
  // 2026-11-27: only the first variant's errors were given). tp 3 and 16 do not divide 8 GPUs.
  const Result all_bad = shardsim({"compare", kExample, "--vary", "parallel.tp=3,16"});
  EXPECT_EQ(all_bad.exit_code, 2);
  EXPECT_TRUE(contains(all_bad.err, "(variant parallel.tp=3)")) << all_bad.err;
  EXPECT_TRUE(contains(all_bad.err, "(variant parallel.tp=16)")) << all_bad.err;
  // A key both varied and set (found by review, 2026-11-27: --vary won silently).
  const Result both =
      shardsim({"compare", kExample, "--vary", "parallel.zero=0,1", "--set", "parallel.zero=3"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(contains(both.err, "is also varied with --vary")) << both.err;
  // A key followed by its own section, which replaces it in every variant (found by review,
  // 2026-11-27: both were exit 0, every variant at ZeRO-0, the zero values lost).
  const Result section_after = shardsim({"compare", kExample, "--vary", "parallel.zero=0,1",
                                         "--vary", R"(parallel={"tp":2},{"tp":4})"});
  EXPECT_EQ(section_after.exit_code, 2);
  EXPECT_TRUE(contains(section_after.err, "give --vary parallel first")) << section_after.err;
  const Result set_inside = shardsim(
      {"compare", kExample, "--set", "parallel.zero=3", "--vary", R"(parallel={"tp":4},{"tp":8})"});
  EXPECT_EQ(set_inside.exit_code, 2);
  EXPECT_TRUE(has_error_line(set_inside.err, "--set parallel.zero=3", "replaces the whole section"))
      << set_inside.err;
}

// The other order applies the key inside the section: every (section, key) pair is its own
// variant. ZeRO-1 shards the optimizer states that ZeRO-0 replicates, so at each TP degree the
// zero=1 variant needs less memory than the zero=0 one (the memory model's ZeRO rule, README
// "The memory model").
TEST(cli_compare, AKeyVariedAfterItsSectionAppliesInsideIt) {
  const Result r = shardsim({"compare", kExample, "--json", "--mode", "analytic", "--vary",
                             R"(parallel={"tp":2},{"tp":4})", "--vary", "parallel.zero=0,1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json v = parse_report(r)["compare"]["variants"];
  ASSERT_EQ(v.size(), 4u);  // (tp 2, zero 0), (tp 2, zero 1), (tp 4, zero 0), (tp 4, zero 1)
  for (std::size_t tp = 0; tp < 2; ++tp)
    EXPECT_LT(v[2 * tp + 1]["memory"]["peak_bytes"].get<double>(),
              v[2 * tp]["memory"]["peak_bytes"].get<double>())
        << v.dump();
}

// Values are split at commas outside braces, brackets and strings, so an object can be varied
// (found by review, 2026-11-27: it was cut at its first comma). The inline network equals the
// datasheet preset dgx-h100-datasheet (scenarios/clusters/dgx-h100-datasheet.json: 450 GB/s,
// 12.9 us, 400 Gb/s, 38.6 us), so both variants give the same step.
TEST(cli_compare, ObjectValuesAreVaried) {
  const Result r = shardsim(
      {"compare", kExample, "--json", "--vary",
       R"(cluster.network={"intra_node_GBps":450,"intra_node_latency_us":12.9,"inter_node_Gbps":400,"inter_node_latency_us":38.6},dgx-h100-datasheet)"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = parse_report(r);
  ASSERT_EQ(j["compare"]["variants"].size(), 2u);
  EXPECT_EQ(j["compare"]["variants"][0]["time"]["step_seconds"],
            j["compare"]["variants"][1]["time"]["step_seconds"]);
}

}  // namespace

namespace {

using namespace cli_test;

// --html: one self-contained page (no scripts, no external resources) with the charts each
// command promises; tests/cli/html_render_test.sh renders them in headless Chromium.
TEST(cli_html, PagesAreSelfContainedWithTheirCharts) {
  struct Page {
    std::vector<std::string> args;
    std::vector<std::string> must;  // chart labels (aria-label) the page carries
  };
  const std::vector<Page> pages = {
      {{"memory", kExample}, {"memory per pipeline stage"}},
      {{"simulate", kExample},
       {"memory per pipeline stage", "step-time breakdown", "pipeline timeline of one step"}},
      {{"compare", kExample, "--vary", "parallel.zero=0,1,2"},
       {"throughput against memory, Pareto front marked"}},
      {{"search", kExample, "--top", "3"}, {"throughput against memory, Pareto front marked"}},
      {{"suite", "--group", "korthikanti"}, {"predicted against published"}}};
  for (const Page& p : pages) {
    const fs::path html = scratch_dir() / (p.args[0] + ".html");
    std::vector<std::string> args = p.args;
    args.push_back("--html");
    args.push_back(html.string());
    const Result r = shardsim(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string page = read_file(html);
    EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u) << p.args[0];
    EXPECT_FALSE(contains(page, "<script")) << p.args[0];
    EXPECT_FALSE(contains(page, " src=")) << p.args[0];
    EXPECT_FALSE(contains(page, "<link")) << p.args[0];
    // The only URL is the SVG namespace, which is a name, not a resource to fetch.
    std::size_t urls = 0, at = 0;
    while ((at = page.find("http", at)) != std::string::npos) {
      EXPECT_EQ(page.compare(at, 26, "http://www.w3.org/2000/svg"), 0) << p.args[0];
      ++urls;
      ++at;
    }
    EXPECT_GT(urls, 0u);
    for (const auto& label : p.must)
      EXPECT_TRUE(contains(page, "aria-label=\"" + label + "\"")) << p.args[0] << ": " << label;
    if (p.args[0] != "suite") {
      EXPECT_TRUE(contains(page, "GiB (2^30")) << p.args[0];  // units stated
    }
  }
  // The Pareto front is marked on the search page.
  EXPECT_TRUE(contains(read_file(scratch_dir() / "search.html"), "class=\"pareto\""));
  // --html on a command with an unwritable path is bad input.
  EXPECT_EQ(shardsim({"memory", kExample, "--html", "/nonexistent-dir/x.html"}).exit_code, 2);
}

}  // namespace
