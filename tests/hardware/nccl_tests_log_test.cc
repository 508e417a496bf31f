// nccl-tests log parser (simulator/hardware/nccl_tests_log.h) on every log of
// scenarios/measurements/nccl-tests/.
// Expected row counts come from the "sizes / rows" column of the shared data README's nccl-tests
// table (the shared data set's README.md, copied files keep their `# source:` header); values are
// read from the files at the cited lines.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <fstream>
#include <sstream>
#include <string>

#include "simulator/hardware/nccl_tests_log.h"

namespace shardsim {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

NcclTestsLog parse_file(const std::string& name) {
  const std::string path = std::string(SHARDSIM_MEASUREMENTS_DIR) + "/nccl-tests/" + name;
  auto result = parse_nccl_tests_log(read_text(path), name);
  if (const auto* e = std::get_if<NcclTestsError>(&result)) ADD_FAILURE() << e->text();
  return std::holds_alternative<NcclTestsLog>(result) ? std::get<NcclTestsLog>(result)
                                                      : NcclTestsLog{};
}

struct Expected {
  std::string file;
  std::string op;
  int rows;       // all data rows, zero-size included
  int zero_rows;  // rows with size 0
  int ranks;      // "# Rank" lines; 0 when the log prints none
  bool old_format;
};

// Row counts: data README table ("8 B-16 GB, 32" -> 32 rows, "22 (+zero-size rows)" -> 22 + 7
// zero-size rows counted in the file). README says "29 (+5 zero-size)" for the Polaris 2-node
// all_reduce, but that file has no zero-size row (its sizes start at 4 B, line 18): the 5 belong
// to the 8-node alltoall (24 + 5 = 29). The RTX 2080 Ti logs ("26-28") have 28 rows, 2 of them
// zero-size for all_gather and alltoall.
const Expected kLogs[] = {
    {"aws-p5-h100-nvlink-1node_all_reduce_8.log", "all_reduce", 32, 0, 0, false},
    {"aws-p5-h100-efa-2node_all_reduce_16.log", "all_reduce", 32, 0, 0, false},
    {"aws-p5-h100-efa-2node-debuginfo_all_reduce_16.log", "all_reduce", 32, 0, 16, false},
    {"aws-p4de-a100-efa-2node_all_reduce_16.log", "all_reduce", 29, 0, 0, false},
    {"gcp-a3mega-h100-tcpxo-2node_all_reduce_16.log", "all_reduce", 31, 0, 16, false},
    {"dgxa100-ib-hdr-k8s-2node_all_reduce_16.log", "all_reduce", 30, 0, 0, true},
    {"dgxa100-ib-hdr-4node_all_reduce_32.log", "all_reduce", 13, 0, 0, true},
    {"dgx1-v100-roce-100g-2node_all_reduce_16.log", "all_reduce", 29, 0, 0, true},
    {"polaris-a100-slingshot-2node_all_reduce_8.log", "all_reduce", 29, 0, 8, false},
    {"polaris-a100-slingshot-8node_all_reduce_32.log", "all_reduce", 29, 0, 32, false},
    {"polaris-a100-slingshot-8node_all_gather_32.log", "all_gather", 29, 7, 32, false},
    {"polaris-a100-slingshot-8node_alltoall_32.log", "alltoall", 29, 5, 32, false},
    {"polaris-a100-slingshot-540node_all_reduce_2160.log", "all_reduce", 29, 0, 2160, false},
    {"h100-sxm-nvlink-1node_all_reduce_8.log", "all_reduce", 10, 0, 8, false},
    {"h100-sxm-nvlink-1node_all_gather_8.log", "all_gather", 10, 0, 8, false},
    {"h100-sxm-nvlink-1node_reduce_scatter_8.log", "reduce_scatter", 10, 0, 8, false},
    {"h100-sxm-nvlink-1node_alltoall_8.log", "alltoall", 10, 0, 8, false},
    {"h100-sxm-nvlink-1node_sendrecv_8.log", "sendrecv", 10, 0, 8, false},
    {"h100-sxm-10node_all_reduce_80.log", "all_reduce", 10, 0, 80, false},
    {"h100-sxm-10node_all_gather_80.log", "all_gather", 10, 0, 80, false},
    {"h100-sxm-10node_reduce_scatter_80.log", "reduce_scatter", 10, 0, 80, false},
    {"h100-sxm-10node_alltoall_80.log", "alltoall", 10, 0, 80, false},
    {"h100-sxm-10node_sendrecv_80.log", "sendrecv", 10, 0, 80, false},
    {"pcie-rtx2080ti-nop2p-1node_all_reduce_2.log", "all_reduce", 28, 0, 2, false},
    {"pcie-rtx2080ti-nop2p-1node_all_gather_2.log", "all_gather", 28, 2, 2, false},
    {"pcie-rtx2080ti-nop2p-1node_alltoall_2.log", "alltoall", 28, 2, 2, false},
    {"pcie-rtx5090-p2p-1node_all_reduce_8.log", "all_reduce", 25, 0, 8, false},
};

TEST(nccl_tests_log, EveryShippedLogParses) {
  for (const auto& e : kLogs) {
    const auto log = parse_file(e.file);
    ASSERT_EQ(log.tests.size(), 1u) << e.file;
    const auto& t = log.tests.front();
    EXPECT_EQ(t.op, e.op) << e.file;
    EXPECT_EQ(int(t.rows.size()), e.rows) << e.file;
    int zero = 0;
    for (const auto& r : t.rows) zero += r.size_bytes == 0;
    EXPECT_EQ(zero, e.zero_rows) << e.file;
    EXPECT_EQ(t.ranks.value_or(0), e.ranks) << e.file;
    EXPECT_EQ(t.old_format, e.old_format) << e.file;
    // Every row is internally consistent: algbw = size / time within the printed rounding
    // (README: "Every nccl-tests data row was checked").
    for (const auto& r : t.rows) {
      if (r.out_of_place.time_us <= 0 || r.out_of_place.algbw_GBps < 1) continue;
      EXPECT_NEAR(r.size_bytes / (r.out_of_place.time_us * 1e3), r.out_of_place.algbw_GBps,
                  0.01 * r.out_of_place.algbw_GBps + 0.01)
          << e.file << ":" << r.line;
    }
  }
}

TEST(nccl_tests_log, SrunPrefixRow) {
  // aws-p4de...log line 5: "0:  8  2  float  sum  -1  164.3  0.00  0.00  0  163.3  0.00 0.00 0"
  const auto t = parse_file("aws-p4de-a100-efa-2node_all_reduce_16.log").tests.at(0);
  const auto& r = t.rows.front();
  EXPECT_EQ(r.line, 5);
  EXPECT_EQ(r.size_bytes, 8);
  EXPECT_EQ(r.count, 2);
  EXPECT_EQ(r.type, "float");
  EXPECT_EQ(r.redop, "sum");
  EXPECT_EQ(r.root, -1);
  EXPECT_EQ(r.out_of_place.time_us, 164.3);
  EXPECT_EQ(r.in_place.time_us, 163.3);
  EXPECT_EQ(r.in_place.check, "0");
}

TEST(nccl_tests_log, TagOutputPrefixesInsideARow) {
  // debuginfo log line 2938: "[1,0]<stdout>: 17179869184 4294967296 float sum -1[1,0]<stdout>:
  // 66023 260.21 487.90 0[1,0]<stdout>: 65990 260.34 488.14 0", after ~2900 NCCL INFO lines.
  const auto t = parse_file("aws-p5-h100-efa-2node-debuginfo_all_reduce_16.log").tests.at(0);
  const auto& r = t.rows.back();
  EXPECT_EQ(r.line, 2938);
  EXPECT_EQ(r.size_bytes, 17179869184.0);
  EXPECT_EQ(r.out_of_place.time_us, 66023);
  EXPECT_EQ(r.out_of_place.busbw_GBps, 487.90);
  EXPECT_EQ(r.in_place.busbw_GBps, 488.14);
  EXPECT_EQ(t.nodes, 2);  // "# Rank" lines on test-nccl-worker-0 and -1
}

TEST(nccl_tests_log, OldFormatErrorColumn) {
  // dgx1-v100-roce...log line 7: "8 2 float sum 2193.5 0.00 0.00 2e-07 132.2 0.00 0.00 2e-07"
  const auto t = parse_file("dgx1-v100-roce-100g-2node_all_reduce_16.log").tests.at(0);
  const auto& r = t.rows.front();
  EXPECT_EQ(r.line, 7);
  EXPECT_EQ(r.root, -1);  // no root column
  EXPECT_EQ(r.out_of_place.time_us, 2193.5);
  EXPECT_EQ(r.out_of_place.check, "2e-07");
  EXPECT_EQ(r.in_place.time_us, 132.2);
}

TEST(nccl_tests_log, InPlaceNotValidatedAndVersion) {
  // h100-sxm-nvlink-1node_sendrecv_8.log line 22: "33554432 4194304 double sum -1 422.19 79.48
  // 79.48 0 422.04 79.51 79.51 N/A"; line 3: "nccl-library=22902" -> NCCL 2.29.2.
  const auto t = parse_file("h100-sxm-nvlink-1node_sendrecv_8.log").tests.at(0);
  EXPECT_EQ(t.rows.front().line, 22);
  EXPECT_EQ(t.rows.front().type, "double");
  EXPECT_EQ(t.rows.front().out_of_place.algbw_GBps, 79.48);
  EXPECT_EQ(t.rows.front().in_place.check, "N/A");
  EXPECT_EQ(t.nccl_version, "2.29.2");
  EXPECT_EQ(t.nodes, 1);
}

TEST(nccl_tests_log, ShellPromptAndZeroSizeRows) {
  // pcie-rtx2080ti all_gather: line 3 is a shell prompt running ./build/all_gather_perf; lines
  // 13-14 are zero-size rows ("0 0 float none -1 0.33 0.00 0.00 0 ...").
  const auto t = parse_file("pcie-rtx2080ti-nop2p-1node_all_gather_2.log").tests.at(0);
  EXPECT_EQ(t.first_line, 13);
  EXPECT_EQ(t.rows.front().size_bytes, 0);
  EXPECT_EQ(t.rows.front().redop, "none");
  EXPECT_EQ(t.rows.front().out_of_place.time_us, 0.33);
}

TEST(nccl_tests_log, LargestScaleLastRow) {
  // polaris 540-node log line 2198: "1073741824 268435456 float sum -1 114623 9.37 18.73 0 ..."
  // after 2160 "# Rank" lines on 540 hosts.
  const auto t = parse_file("polaris-a100-slingshot-540node_all_reduce_2160.log").tests.at(0);
  EXPECT_EQ(t.last_line, 2198);
  EXPECT_EQ(t.rows.back().out_of_place.time_us, 114623);
  EXPECT_EQ(t.rows.back().out_of_place.busbw_GBps, 18.73);
  EXPECT_EQ(t.nodes, 540);
}

TEST(nccl_tests_log, SeveralTestsInOneFile) {
  // Two logs concatenated: two tests, each with its own op, rows and version (the second's
  // "nccl-tests version" line opens it, so the version does not leak into the first).
  const std::string text = read_text(std::string(SHARDSIM_MEASUREMENTS_DIR) +
                                     "/nccl-tests/aws-p5-h100-efa-2node_all_reduce_16.log") +
                           read_text(std::string(SHARDSIM_MEASUREMENTS_DIR) +
                                     "/nccl-tests/h100-sxm-nvlink-1node_alltoall_8.log");
  const auto result = parse_nccl_tests_log(text, "combined.txt");
  ASSERT_TRUE(std::holds_alternative<NcclTestsLog>(result));
  const auto& tests = std::get<NcclTestsLog>(result).tests;
  ASSERT_EQ(tests.size(), 2u);
  EXPECT_EQ(tests[0].rows.size(), 32u);  // README: 8 B-16 GB, 32
  EXPECT_EQ(tests[0].nccl_version, "");
  EXPECT_EQ(tests[1].op, "alltoall");  // "# Collective test starting: alltoall_perf"
  EXPECT_EQ(tests[1].rows.size(), 10u);
  EXPECT_EQ(tests[1].nccl_version, "2.29.2");
  EXPECT_EQ(tests[0].op, "all_reduce");  // line 2 of that log: "...; all_reduce_perf 8B..16GB"
}

TEST(nccl_tests_log, MalformedInputIsAnErrorWithFileAndLine) {
  // Line 2 is a data row with 11 fields.
  const auto bad =
      parse_nccl_tests_log("# header\n 8 2 float sum -1 1.0 0.0 0.0 0 1.0 0.0\n", "x.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsError>(bad));
  EXPECT_EQ(std::get<NcclTestsError>(bad).text().substr(0, 8), "x.log:2:");
  // Non-numeric time in an otherwise well-formed row.
  const auto word = parse_nccl_tests_log(" 8 2 float sum -1 fast 0 0 0 1 0 0 0\n", "y.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsError>(word));
  EXPECT_EQ(std::get<NcclTestsError>(word).line, 1);
  // No rows at all (empty text, binary garbage) is an error, not a crash.
  EXPECT_TRUE(std::holds_alternative<NcclTestsError>(parse_nccl_tests_log("", "e.log")));
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919) % 256);
  EXPECT_TRUE(std::holds_alternative<NcclTestsError>(parse_nccl_tests_log(garbage, "g.log")));
}

// Found by review (2026-11-28): a 10 MB line (a progress bar's carriage returns in a job log)
// took minutes to strip of its mpirun tags, and 100,000 rows took 29 s to fit. A tag is still
// stripped around a long line, and a test of more than kMaxRowsPerCollective rows is an error at
// the first row over (10,000 + 1 rows: line 10,001).
TEST(nccl_tests_log, LongLinesAndRowCountsAreBounded) {
  const std::string filler(2'000'000, 'x');
  const auto tagged = parse_nccl_tests_log(
      "# " + filler + "\n[1,0]<stdout>: 8 2 float sum -1 1.0 0.01 0.01 0 1.0 0.01 0.01 0\n",
      "t.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsLog>(tagged))
      << std::get<NcclTestsError>(tagged).text();
  EXPECT_EQ(std::get<NcclTestsLog>(tagged).tests.at(0).rows.at(0).line, 2);
  std::string many;
  for (std::size_t i = 1; i <= kMaxRowsPerCollective + 1; ++i)
    // time 1000 us: algbw = bytes / 1e3 / time(us) GB/s, printed to 2 decimals as nccl-tests does
    many += fmt::format(" {0} {1} float sum -1 1000.0 {2:.2f} {2:.2f} 0 1000.0 {2:.2f} {2:.2f} 0\n",
                        8 * i, 2 * i, 8.0 * double(i) / 1e6);
  const auto over = parse_nccl_tests_log(many, "m.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsError>(over));
  EXPECT_EQ(std::get<NcclTestsError>(over).line, int(kMaxRowsPerCollective) + 1);
  EXPECT_NE(std::get<NcclTestsError>(over).text().find("more than 10000 data rows"),
            std::string::npos);
  // A NUL in a row is written \x00 in its message, which goes on past it (it ended there).
  const auto nul = parse_nccl_tests_log(
      std::string(" 8 2 float sum -1 1.0 0.01 0.01 0 1.0 0.01 0.01 0\n \0 2 float sum -1 1.0 "
                  "0.01 0.01 0 1.0 0.01 0.01 0\n",
                  100),
      "n.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsError>(nul));
  const std::string text = std::get<NcclTestsError>(nul).text();
  EXPECT_NE(text.find("n.log:2: data row's size \"\\x00\" is not a whole number"),
            std::string::npos)
      << text;
}

// Found by review (2026-11-27): rows with negative or zero times and negative sizes were dropped
// without a word, and a row with wrong results was fitted. Each is now a malformed row at its
// line. A zero-size row (size 0, time > 0) still parses, and the old format's error column (a
// maximum error such as 5e-07) is not a wrong count.
TEST(nccl_tests_log, NegativeZeroTimeAndWrongResultsAreErrors) {
  for (const char* row : {" 8 2 float sum -1 -11.78 0.0 0.0 0 1.0 0.0 0.0 0\n",
                          " 8 2 float sum -1 0.00 0.0 0.0 0 1.0 0.0 0.0 0\n",
                          " -256 -64 float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n",
                          " 8 2 float sum -1 1.0 0.0 0.0 12 1.0 0.0 0.0 0\n",
                          // a size not written as nccl-tests writes it was skipped as text,
                          // silently (found by review, 2026-11-28)
                          " 8.0 2 float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n",
                          " 8e0 2 float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n",
                          " +8 2 float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n",
                          // nor a size that is no number at all, in a row whose timing
                          // columns are (found by review, 2026-11-28: "9 rows" of 10, exit 0)
                          " 1e400 2 float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n",
                          " 0x8 2 float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n",
                          " 8B 2 float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n",
                          " abc 2 float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 N/A\n",
                          " abc 2 float sum 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n"}) {
    const auto bad = parse_nccl_tests_log(std::string("# header\n") + row, "n.log");
    ASSERT_TRUE(std::holds_alternative<NcclTestsError>(bad)) << row;
    EXPECT_EQ(std::get<NcclTestsError>(bad).text().substr(0, 8), "n.log:2:") << row;
  }
  EXPECT_TRUE(std::holds_alternative<NcclTestsLog>(
      parse_nccl_tests_log(" 0 0 float sum -1 0.21 0.00 0.00 0 0.20 0.00 0.00 0\n", "z.log")));
  EXPECT_TRUE(std::holds_alternative<NcclTestsLog>(
      parse_nccl_tests_log(" 8 2 float sum 1.0 0.0 0.0 5e-07 1.0 0.0 0.0 5e-07\n", "o.log")));
}

// Found by review (2026-11-27): a time that disagrees with its own algbw column (size / time,
// GB/s) was fitted (1e-30 us gave a 1e5 GB/s segment); ranks spread unevenly over the hosts
// (3 + 3 + 2) were fitted as "3 per node"; a rank listed twice was counted twice.
// nccl-tests' own verdict and its abort lines: a FAILED check (old-format logs have no per-row
// #wrong, so the trailer is their only check) and an aborted sweep are errors at their line.
TEST(nccl_tests_log, AFailedCheckOrAnAbortedRunIsRefused) {
  const std::string header =
      "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
  // 1048576 B in 10.00 us: 104.86 GB/s, as TimesAgreeWithTheirBandwidthAndRanksWithTheirHosts.
  const std::string row =
      " 1048576 262144 float sum -1 10.00 104.86 183.50 0 10.00 104.86 183.50 0\n";
  const auto text_of = [](const auto& parsed) {
    return std::holds_alternative<NcclTestsError>(parsed) ? std::get<NcclTestsError>(parsed).text()
                                                          : std::string("parsed");
  };
  const std::string ok = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 183.5\n";
  EXPECT_TRUE(std::holds_alternative<NcclTestsLog>(parse_nccl_tests_log(header + row + ok, "o")));
  const auto failed =
      parse_nccl_tests_log(header + row + "# Out of bounds values : 48 FAILED\n", "f.log");
  EXPECT_NE(text_of(failed).find("f.log:3: the run's own check failed (\"Out of bounds values : "
                                 "48 FAILED\")"),
            std::string::npos)
      << text_of(failed);
  const auto aborted = parse_nccl_tests_log(
      header + row + " cnode3-002: Test NCCL failure common.cu:1005 'unhandled cuda error'\n",
      "a.log");
  EXPECT_NE(text_of(aborted).find("a.log:3: the run aborted here (\"Test NCCL failure\")"),
            std::string::npos)
      << text_of(aborted);
  // Lines ended by a bare CR are one line to the parser: the error says why no row was found.
  std::string cr = header + row;
  std::ranges::replace(cr, '\n', '\r');
  EXPECT_NE(text_of(parse_nccl_tests_log(cr, "c.log"))
                .find("c.log:1: no nccl-tests data rows "
                      "found: its lines end in a bare "
                      "carriage return"),
            std::string::npos)
      << text_of(parse_nccl_tests_log(cr, "c.log"));
}

TEST(nccl_tests_log, TimesAgreeWithTheirBandwidthAndRanksWithTheirHosts) {
  // 1048576 B in 10.00 us is 104.86 GB/s (algbw = size / time / 1e3 with time in us).
  const std::string header =
      "#  size count type redop root time algbw busbw #wrong time algbw "
      "busbw #wrong\n";
  const std::string good =
      " 1048576 262144 float sum -1 10.00 104.86 183.50 0 10.00 104.86 183.50 0\n";
  EXPECT_TRUE(std::holds_alternative<NcclTestsLog>(parse_nccl_tests_log(header + good, "g.log")));
  const std::string edited =
      " 1048576 262144 float sum -1 1e-30 104.86 183.50 0 10.00 104.86 183.50 0\n";
  const auto bad = parse_nccl_tests_log(header + edited, "b.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsError>(bad));
  EXPECT_NE(std::get<NcclTestsError>(bad).text().find("b.log:2: data row's time"),
            std::string::npos)
      << std::get<NcclTestsError>(bad).text();
  // Ranks 0-2 on h0, 3-5 on h1, 6-7 on h2.
  std::string uneven;
  for (int r = 0; r < 8; ++r)
    uneven += fmt::format("#  Rank {} Group  0 Pid  1 on h{} device  {} [0x00] NVIDIA H100\n", r,
                          r / 3, r % 3);
  const auto spread = parse_nccl_tests_log(uneven + header + good, "u.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsError>(spread));
  EXPECT_NE(
      std::get<NcclTestsError>(spread).text().find("u.log:8: the \"# Rank\" lines spread "
                                                   "the ranks unevenly over the hosts (h0: 3, "
                                                   "h1: 3, h2: 2)"),
      std::string::npos)
      << std::get<NcclTestsError>(spread).text();
  const std::string twice =
      "#  Rank 0 Group  0 Pid  1 on h0 device  0 [0x00] NVIDIA H100\n"
      "#  Rank 0 Group  0 Pid  2 on h0 device  1 [0x00] NVIDIA H100\n";
  const auto dup = parse_nccl_tests_log(twice + header + good, "d.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsError>(dup));
  EXPECT_EQ(std::get<NcclTestsError>(dup).text(), "d.log:2: rank 0 is listed twice");
  // Found by audit (2026-11-29): a rank id past the count (ranks 0 and 100 of two lines) or one
  // that is no rank number was taken as it came.
  // The error names the line of the rank past the count, not the last "# Rank" line.
  const std::string past =
      "#  Rank 100 Group  0 Pid  2 on h0 device  1 [0x00] NVIDIA H100\n"
      "#  Rank 0 Group  0 Pid  1 on h0 device  0 [0x00] NVIDIA H100\n";
  const auto gap = parse_nccl_tests_log(past + header + good, "p.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsError>(gap));
  EXPECT_EQ(std::get<NcclTestsError>(gap).text(),
            "p.log:1: the \"# Rank\" lines list rank 100 but only 2 ranks; nccl-tests numbers "
            "them 0 to 1: lines are missing or from another run");
  const auto minus = parse_nccl_tests_log(
      "#  Rank -1 Group  0 Pid  1 on h0 device  0 [0x00] NVIDIA H100\n" + header + good, "m.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsError>(minus));
  EXPECT_EQ(std::get<NcclTestsError>(minus).text(),
            "m.log:1: \"-1\" is not a rank number (0, 1, ...)");
}

// The column header says what the columns are (the field count did before, 2026-11-27): a
// layout with the root column and the old `error` maximum (13 fields, as 12 of the new layout's
// would be) reads its 1e-07 as an error size, not as wrong results; rows that do not have the
// header's fields are malformed at their line, naming the header's.
TEST(nccl_tests_log, TheColumnHeaderSaysWhatTheColumnsAre) {
  const auto rooted = parse_nccl_tests_log(
      "#  size  count  type  redop  root  time  algbw  busbw  error  time  algbw  busbw  error\n"
      " 8 2 float sum -1 30.1 0.00 0.00 1e-07 29.8 0.00 0.00 1e-07\n",
      "r.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsLog>(rooted));
  EXPECT_EQ(std::get<NcclTestsLog>(rooted).tests.at(0).rows.at(0).out_of_place.time_us, 30.1);
  // The same row under a #wrong header: 1e-07 is not a count of 0, so "wrong result(s)".
  const auto counted = parse_nccl_tests_log(
      "#  size  count  type  redop  root  time  algbw  busbw #wrong  time  algbw  busbw #wrong\n"
      " 8 2 float sum -1 30.1 0.00 0.00 1e-07 29.8 0.00 0.00 1e-07\n",
      "w.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsError>(counted));
  EXPECT_NE(std::get<NcclTestsError>(counted).text().find("w.log:2: data row reports 1e-07 wrong"),
            std::string::npos);
  // A 12-field row under a 13-column header.
  const auto short_row = parse_nccl_tests_log(
      "#  size  count  type  redop  root  time  algbw  busbw #wrong  time  algbw  busbw #wrong\n"
      " 8 2 float sum 30.1 0.00 0.00 0 29.8 0.00 0.00 0\n",
      "s.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsError>(short_row));
  EXPECT_EQ(std::get<NcclTestsError>(short_row).text(),
            "s.log:2: data row has 12 fields; the column header on line 1 names 13 (size count "
            "type redop root time algbw busbw #wrong time algbw busbw #wrong)");
  // A comment whose second word is "size" is no header: the rows keep the real header's layout.
  const auto comment = parse_nccl_tests_log(
      "#  size  count  type  redop  root  time  algbw  busbw #wrong  time  algbw  busbw #wrong\n"
      " 8 2 float sum -1 30.1 0.00 0.00 0 29.8 0.00 0.00 0\n"
      "# size here is in bytes\n"
      " 16 4 float sum -1 30.5 0.00 0.00 0 30.2 0.00 0.00 0\n",
      "c.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsLog>(comment));
  EXPECT_EQ(std::get<NcclTestsLog>(comment).tests.size(), 1u);  // not split into two tests
  EXPECT_EQ(std::get<NcclTestsLog>(comment).tests.at(0).rows.size(), 2u);
  // A header of 14 names is a layout shardsim does not read: said so, with its names.
  const auto wide = parse_nccl_tests_log(
      "#  size  count  type  redop  root  time  algbw  busbw #wrong  time  algbw  busbw #wrong x\n"
      " 8 2 float sum -1 30.1 0.00 0.00 0 29.8 0.00 0.00 0 1\n",
      "x.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsError>(wide));
  EXPECT_NE(std::get<NcclTestsError>(wide).text().find(
                "x.log:2: the column header on line 1 names 14 columns (size count type redop "
                "root time algbw busbw #wrong time algbw busbw #wrong x)"),
            std::string::npos)
      << std::get<NcclTestsError>(wide).text();
}

TEST(nccl_tests_log, EmptyLibraryVersionAndOutOfRangeValues) {
  // A header ending in "nccl-library=" (nothing after it) used to call front() on an empty
  // vector; it now leaves the version empty and the row on line 2 still parses.
  const auto empty = parse_nccl_tests_log(
      "# nccl-tests version 2.13.8 nccl-headers=22203 nccl-library=\n"
      " 8 2 float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n",
      "v.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsLog>(empty));
  EXPECT_EQ(std::get<NcclTestsLog>(empty).tests.at(0).nccl_version, "");
  // A library code of 1e300 does not fit an int: no version rather than a UB cast.
  const auto huge = parse_nccl_tests_log(
      "# nccl-library=1e300\n 8 2 float sum -1 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n", "h.log");
  ASSERT_TRUE(std::holds_alternative<NcclTestsLog>(huge));
  EXPECT_EQ(std::get<NcclTestsLog>(huge).tests.at(0).nccl_version, "");
  // Roots 1e300, -2 and 1.5 are not ranks: malformed row at file:line 1.
  for (const char* root : {"1e300", "-2", "1.5"}) {
    const auto bad = parse_nccl_tests_log(
        fmt::format(" 8 2 float sum {} 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n", root), "r.log");
    ASSERT_TRUE(std::holds_alternative<NcclTestsError>(bad)) << root;
    EXPECT_EQ(std::get<NcclTestsError>(bad).text().substr(0, 8), "r.log:1:") << root;
  }
  // from_chars accepts "inf" and "nan"; a non-finite time is a malformed row, not a value.
  for (const char* time : {"inf", "nan", "-inf"}) {
    const auto bad = parse_nccl_tests_log(
        fmt::format("# x\n 8 2 float sum -1 {} 0.0 0.0 0 1.0 0.0 0.0 0\n", time), "n.log");
    ASSERT_TRUE(std::holds_alternative<NcclTestsError>(bad)) << time;
    EXPECT_EQ(std::get<NcclTestsError>(bad).text().substr(0, 8), "n.log:2:") << time;
  }
}

}  // namespace
}  // namespace shardsim
