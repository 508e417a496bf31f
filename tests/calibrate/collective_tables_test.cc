// Collective tables that are not nccl-tests logs (calibrate/collective_tables.h): vTrain's
// all-reduce LUT and the Azure busbw summary, read into MeasuredCollective rows; the size ladder.
#include "calibrate/collective_tables.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace shardsim::calibrate {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(SHARDSIM_MEASUREMENTS_DIR);

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kHeader = "size(B),count,type,time(ns),busbw(GB/s),time(ns),busbw(GB/s)\n";

MeasuredCollective one(const std::variant<std::vector<MeasuredCollective>, std::string>& r) {
  if (auto* e = std::get_if<std::string>(&r)) ADD_FAILURE() << *e;
  const auto& v = std::get<std::vector<MeasuredCollective>>(r);
  EXPECT_EQ(v.size(), 1u);
  return v.front();
}

std::string error_of(const std::variant<std::vector<MeasuredCollective>, std::string>& r) {
  const auto* e = std::get_if<std::string>(&r);
  return e ? *e : "(no error)";
}

TEST(collective_tables, VtrainRanksComeFromBusbwOverAlgbw) {
  // a100_all_reduce_8gpu_1M_1024M.csv line 5 (after the 3 source lines and the header):
  // 1048576 B, out-of-place 92790 ns, busbw 19.78 GB/s; algbw = 1048576 / 92790e-9 = 11.30 GB/s,
  // busbw / algbw = 1.750 = 2(8-1)/8, so 8 ranks, all on one node.
  const std::string file = (kData / "vtrain/a100_all_reduce_8gpu_1M_1024M.csv").string();
  const auto m = one(parse_collective_table(read(file), file, {}, ""));
  EXPECT_EQ(m.op, "all_reduce");
  EXPECT_EQ(m.ranks, 8);
  EXPECT_EQ(m.ranks_per_node, 8);
  ASSERT_EQ(m.bytes.size(), 1024u);  // 1 MiB ... 1024 MiB in 1 MiB steps
  EXPECT_EQ(m.bytes.front(), 1048576);
  EXPECT_EQ(m.lines.front(), 5);
  // time = min(out-of-place 92790 ns, in-place 92150 ns)
  EXPECT_DOUBLE_EQ(m.seconds.front(), 92150e-9);
  // 2 MiB (line 6): min(93250, 92970) ns: the ~93 us the issue quotes for 8 GPUs.
  EXPECT_DOUBLE_EQ(m.seconds[1], 92970e-9);
  for (int n : {2, 3, 4, 5, 6, 7}) {
    const std::string f =
        (kData / ("vtrain/a100_all_reduce_" + std::to_string(n) + "gpu_1M_1024M.csv")).string();
    EXPECT_EQ(one(parse_collective_table(read(f), f, {}, "")).ranks, n) << f;
  }
}

TEST(collective_tables, VtrainRankCountMustAgreeWithNameAndFlag) {
  // Two rows of 2 ranks: busbw = algbw (bus factor 2(2-1)/2 = 1): 1048576 B / 44210 ns =
  // 23.72 GB/s.
  const std::string rows = kHeader +
                           "1048576,262144,float,44210,23.72,45100,23.25\n"
                           "2097152,524288,float,53430,39.25,51130,41.01\n";
  EXPECT_EQ(one(parse_collective_table(rows, "x.csv", {}, "")).ranks, 2);
  EXPECT_NE(error_of(parse_collective_table(rows, "t_4gpu_x.csv", {}, ""))
                .find("t_4gpu_x.csv: the file name says 4 GPUs but busbw / algbw gives 2 ranks"),
            std::string::npos);
  EXPECT_NE(error_of(parse_collective_table(rows, "x.csv", {8, 8}, "")).find("--ranks is 8"),
            std::string::npos);
}

// Found by review (2026-11-28): a size given twice was collapsed to its first row without a word.
// Now the faster row is kept (as nccl-tests logs do: interference only adds time) and the other
// is reported. 2 ranks, bus factor 1: 1048576 B in 88420 ns = 11.86 GB/s on line 2; the repeat
// on line 4 at 44210 ns = 23.72 GB/s is the faster, so it is kept (44.21 us, the min of its two
// columns) and line 2 is reported.
TEST(collective_tables, ARepeatedSizeKeepsTheFasterRowAndSaysSo) {
  const std::string rows = kHeader +
                           "1048576,262144,float,88420,11.86,88420,11.86\n"
                           "2097152,524288,float,53430,39.25,51130,41.01\n"
                           "1048576,262144,float,44210,23.72,45100,23.25\n";
  const MeasuredCollective m = one(parse_collective_table(rows, "x.csv", {}, ""));
  EXPECT_EQ(m.bytes, (std::vector<double>{1048576, 2097152}));
  EXPECT_DOUBLE_EQ(m.seconds[0], 44210e-9);
  EXPECT_EQ(m.lines[0], 4);
  ASSERT_EQ(m.repeated.size(), 1u);
  EXPECT_EQ(m.repeated[0].line, 2);
  EXPECT_EQ(m.repeated[0].kept_line, 4);
  // Three rows of one size (lines 2, 4, 5: 66.3, 88.42 and 44.21 us, min of each row's two
  // columns): each reported row names the row finally kept, line 5 (a first version named the
  // row kept when it was read, line 2, for line 4).
  const MeasuredCollective three =
      one(parse_collective_table(kHeader + "1048576,262144,float,66315,15.81,66315,15.81\n"
                                           "2097152,524288,float,53430,39.25,51130,41.01\n"
                                           "1048576,262144,float,88420,11.86,88420,11.86\n"
                                           "1048576,262144,float,44210,23.72,45100,23.25\n",
                                 "x.csv", {}, ""));
  ASSERT_EQ(three.repeated.size(), 2u);
  EXPECT_EQ(three.repeated[0].line, 2);
  EXPECT_EQ(three.repeated[1].line, 4);
  EXPECT_EQ(three.repeated[0].kept_line, 5);
  EXPECT_EQ(three.repeated[1].kept_line, 5);
}

TEST(collective_tables, MalformedVtrainRowsNameFileAndLine) {
  // Line 3: a time that is not a number.
  const std::string bad_time = kHeader +
                               "1048576,262144,float,44210,23.72,45100,23.25\n"
                               "2097152,524288,float,fast,39.25,51130,41.01\n";
  EXPECT_NE(error_of(parse_collective_table(bad_time, "v.csv", {}, "")).find("v.csv:3: time(ns)"),
            std::string::npos);
  // Line 2: six fields.
  const std::string short_row = kHeader + "1048576,262144,float,44210,23.72,45100\n";
  EXPECT_NE(
      error_of(parse_collective_table(short_row, "v.csv", {}, "")).find("v.csv:2: expected 7"),
      std::string::npos);
  // Line 3: busbw 30.00 where 2097152 B / 53430 ns x 1 = 39.25 GB/s (2 ranks from line 2 and the
  // median ratio): a time and a busbw that do not belong together.
  const std::string mismatch = kHeader +
                               "1048576,262144,float,44210,23.72,45100,23.25\n"
                               "2097152,524288,float,53430,30.00,51130,41.01\n"
                               "3145728,786432,float,60000,52.43,60000,52.43\n";
  EXPECT_NE(
      error_of(parse_collective_table(mismatch, "v.csv", {}, "")).find("v.csv:3: busbw 30 GB/s"),
      std::string::npos);
  // Line 3: 524288 floats are 2097152 B, not 2097150; line 2: "float32" is no nccl-tests type
  // (size(B) = count x the type's bytes in every row of vTrain's tables).
  const std::string edited = kHeader +
                             "1048576,262144,float,44210,23.72,45100,23.25\n"
                             "2097150,524288,float,53430,39.25,51130,41.01\n";
  EXPECT_NE(error_of(parse_collective_table(edited, "v.csv", {}, ""))
                .find("v.csv:3: size(B) 2097150 is not count \"524288\" x 4 bytes (float)"),
            std::string::npos)
      << error_of(parse_collective_table(edited, "v.csv", {}, ""));
  const std::string odd_type = kHeader + "1048576,262144,float32,44210,23.72,45100,23.25\n";
  EXPECT_NE(error_of(parse_collective_table(odd_type, "v.csv", {}, ""))
                .find("v.csv:2: type \"float32\" is not an nccl-tests datatype"),
            std::string::npos);
  // busbw / algbw = 1.3: no integer N has 2(N-1)/N = 1.3 (N = 2.86).
  const std::string no_n = kHeader +
                           "1000000,250000,float,100000,13.00,100000,13.00\n"
                           "2000000,500000,float,200000,13.00,200000,13.00\n";
  EXPECT_NE(error_of(parse_collective_table(no_n, "v.csv", {}, "")).find("not the all-reduce bus"),
            std::string::npos);
  // An unknown header names both known formats.
  const std::string e = error_of(parse_collective_table("a,b,c\n1,2,3\n", "u.csv", {}, ""));
  EXPECT_NE(e.find("u.csv:1: unknown collective table header \"a,b,c\""), std::string::npos) << e;
  EXPECT_NE(e.find("size(B),count"), std::string::npos) << e;
  EXPECT_NE(e.find("system,gpu,nranks"), std::string::npos) << e;
}

TEST(collective_tables, BusbwSummaryTimeIsSizeTimesBusFactorOverBusbw) {
  const std::string file =
      (kData / "nccl-tests/azure-nd-a100v4-h100v5-h200v5-1node_all_reduce_8_busbw-summary.csv")
          .string();
  const auto m = one(parse_collective_table(read(file), file, {0, 8}, "H200"));
  EXPECT_EQ(m.op, "all_reduce");  // from the file name
  EXPECT_EQ(m.ranks, 8);
  EXPECT_EQ(m.ranks_per_node, 8);
  ASSERT_EQ(m.bytes.size(), 24u);  // 1 KB ... 8 GB
  // ND_H200_v5 2M row: busbw 88.78 GB/s; t = 2097152 x 2(8-1)/8 / 88.78e9 = 41.34 us.
  EXPECT_NEAR(m.seconds[11], 2097152 * 1.75 / 88.78e9, 1e-12);
  // Three devices in one table: the device must be chosen.
  EXPECT_NE(
      error_of(parse_collective_table(read(file), file, {0, 8}, "")).find("rows of 3 devices"),
      std::string::npos);
  // No collective in the file name.
  EXPECT_NE(error_of(parse_collective_table(read(file), "busbw.csv", {0, 8}, "H200"))
                .find("name one collective in the file name"),
            std::string::npos);
  // A bad busbw names its line (header on line 1).
  const std::string bad =
      "system,gpu,nranks,size_label,size_bytes,inplace_busbw_GBps\nS,G,8,1K,1024,-1\n";
  EXPECT_NE(error_of(parse_collective_table(bad, "s_all_reduce_8.csv", {0, 8}, ""))
                .find("s_all_reduce_8.csv:2: inplace_busbw_GBps \"-1\""),
            std::string::npos);
  // Found by review (2026-11-28): nranks 2^31 failed inside the fit (exit 3), and 12 ranks in
  // nodes of 8 were stored. Both are errors naming the table.
  const std::string head = "system,gpu,nranks,size_label,size_bytes,inplace_busbw_GBps\n";
  EXPECT_NE(error_of(parse_collective_table(head + "S,G,2147483648,1K,1024,1\nS,G,2147483648,2K,"
                                                   "2048,1\n",
                                            "h_all_reduce.csv", {0, 8}, ""))
                .find("h_all_reduce.csv:2: nranks \"2147483648\" is not an integer from 2 to 2^24"),
            std::string::npos);
  EXPECT_NE(error_of(parse_collective_table(head + "S,G,12,1K,1024,1\nS,G,12,2K,2048,1\n",
                                            "h_all_reduce.csv", {0, 8}, ""))
                .find("12 ranks do not fill nodes of 8"),
            std::string::npos);
}

TEST(collective_tables, LadderKeepsPowersOfTwoAndThreeTimesThem) {
  // 2^20, 3 x 2^20, 2^21 are on the ladder; 5 x 2^20 and 7 x 2^20 are not.
  EXPECT_TRUE(on_size_ladder(1048576));
  EXPECT_TRUE(on_size_ladder(3145728));
  EXPECT_TRUE(on_size_ladder(2097152));
  EXPECT_FALSE(on_size_ladder(5242880));
  EXPECT_FALSE(on_size_ladder(7340032));
  EXPECT_FALSE(on_size_ladder(1.5));
  // vTrain's 1024 sizes of 1 MiB steps: 1, 2, 3, 4, 6, 8, ..., 768, 1024 MiB are on the ladder:
  // 2^0..2^10 MiB (11) and 3 x 2^0..3 x 2^8 MiB (9), 20 in all; 1024 - 20 = 1004 held out.
  const std::string file = (kData / "vtrain/a100_all_reduce_2gpu_1M_1024M.csv").string();
  const auto [on, off] = split_on_ladder(one(parse_collective_table(read(file), file, {}, "")));
  EXPECT_EQ(on.bytes.size(), 20u);
  EXPECT_EQ(off.bytes.size(), 1004u);
}

TEST(collective_tables, DeviceMatchesAnyBarSeparatedPart) {
  EXPECT_TRUE(device_matches("NVIDIA A100 SXM", "A100-SXM4-80GB|NVIDIA A100 SXM"));
  EXPECT_TRUE(device_matches("NVIDIA A100-SXM4-80GB (Azure)", "A100-SXM4-80GB|NVIDIA A100 SXM"));
  EXPECT_FALSE(device_matches("NVIDIA A100 PCIe", "A100-SXM4-80GB|NVIDIA A100 SXM"));
  EXPECT_FALSE(device_matches("NVIDIA GH200 SXM", "NVIDIA H200 SXM"));
  EXPECT_TRUE(device_matches("anything", ""));
}

}  // namespace
}  // namespace shardsim::calibrate
