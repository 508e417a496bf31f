// format_fixed: the same text as fmt's "{:.Nf}" for every value, ties (exact binary halves such
// as 0.125 or k + 0.5) included, which both round to even.
#include "simulator/core/strings.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

namespace shardsim {
namespace {

void expect_fmt(double v) {
  for (int d = 0; d <= 3; ++d) EXPECT_EQ(format_fixed(v, d), fmt::format("{:.{}f}", v, d)) << v;
}

TEST(format_fixed, TiesRoundHalfToEvenAsFmtDoes) {
  for (double v :
       {0.0,  0.125, 0.375, 0.625, 0.875,  0.5,    1.5,    2.5,    0.25,       0.75,   0.05,
        0.15, 1.005, 2.675, 80.0,  80.125, 80.375, 1e-300, 5e-324, 0x1p53 - 1, 99.995, 9.9995})
    expect_fmt(v);
}

TEST(format_fixed, MatchesFmtOnRandomValues) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> log_mag(-20, 15);
  for (int i = 0; i < 200000; ++i) {
    expect_fmt(std::pow(10.0, log_mag(rng)));                             // any magnitude
    expect_fmt(double(rng() % 100000000) / double(1 << (rng() % 12)));    // dyadic: many ties
    expect_fmt(double(rng() % (std::uint64_t(1) << 40)) / 1073741824.0);  // bytes / GiB
  }
}

TEST(format_fixed, OtherValuesGoToFmt) {
  for (double v : {-0.0, -1.25, 1e20, std::nan(""), double(INFINITY)}) expect_fmt(v);
}

// terminal_safe spells out what a terminal would act on, as JSON escapes, and keeps the rest byte
// for byte: C0 other than tab and line feed, DEL, and C1 (UTF-8 0xC2 0x80-0x9F); other UTF-8
// stays ("é" is 0xC3 0xA9, "\u00a0" is 0xC2 0xA0, above the C1 range).
TEST(terminal_safe, SpellsOutControlsAndKeepsTheRest) {
  EXPECT_EQ(terminal_safe("a\x1b[31mb"), "a\\u001b[31mb");
  EXPECT_EQ(terminal_safe("cr\rdel\x7f"), "cr\\u000ddel\\u007f");
  EXPECT_EQ(terminal_safe("tab\tline\n"), "tab\tline\n");
  EXPECT_EQ(terminal_safe("csi\xc2\x9b"
                          "2J"),
            "csi\\u009b2J");
  EXPECT_EQ(terminal_safe("caf\xc3\xa9 \xc2\xa0x"), "caf\xc3\xa9 \xc2\xa0x");
  EXPECT_EQ(terminal_safe("end\xc2"), "end\xc2");  // a lone lead byte at the end stays
  EXPECT_EQ(terminal_safe(std::string("nul\0x", 5)), "nul\\u0000x");
  for (const char* text : {"plain", "caf\xc3\xa9", "tab\tline\n", ""})
    EXPECT_TRUE(terminal_safe_already(text)) << text;
  for (const char* text : {"a\x1b", "\xc2\x85", "\x7f"}) EXPECT_FALSE(terminal_safe_already(text));
}

}  // namespace
}  // namespace shardsim
