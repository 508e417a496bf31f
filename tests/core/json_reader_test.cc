// Strict JSON reading: unknown keys, types, ranges, suggestions, all errors collected.
#include <gtest/gtest.h>

#include "simulator/core/json_reader.h"
#include "simulator/core/strings.h"

namespace shardsim {
namespace {

TEST(EditDistance, ClassicCases) {
  // kitten -> sitting: substitute k->s, e->i, insert g = 3 edits (the textbook example).
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);  // three insertions
  EXPECT_EQ(edit_distance("same", "same"), 0u);
}

TEST(Nearest, SuggestsOnlyCloseWords) {
  const std::vector<std::string> keys = {"seq_len", "global_batch", "micro_batch"};
  EXPECT_EQ(nearest("seq_lenn", keys), "seq_len");  // one deletion away
  EXPECT_EQ(nearest("zzzzzzzzzz", keys), "");       // nothing within a third of the length
  // Found by review: "BF16" suggested "fp16" (one edit) and "h100" suggested "b200".
  const std::vector<std::string> dtypes = {"fp32", "fp16", "bf16", "fp8"};
  EXPECT_EQ(nearest("BF16", dtypes), "bf16");  // the same word in another case
  const std::vector<std::string> gpus = {"b200", "h100-sxm", "h100-sxm-datasheet", "h200-sxm"};
  EXPECT_EQ(nearest("h100", gpus), "h100-sxm");      // the shortest that begins with it
  EXPECT_EQ(nearest("H200-SXN", gpus), "h200-sxm");  // one edit, case ignored
}

TEST(ObjectReader, ReadsValuesAndKeepsDefaults) {
  Diagnostics d;
  const auto j = nlohmann::json::parse(R"({"a": 4, "b": 5e8, "c": true, "s": "x"})");
  ObjectReader r(j, "/sec", d);
  std::int64_t a = 0, b = 0, missing = 7;
  bool c = false;
  std::string s;
  r.integer("a", a, 1, 10);
  r.integer("b", b, 0, std::int64_t{1} << 40);  // an integral float (5e8) is an integer
  r.integer("missing", missing, 0, 10);         // absent: keeps its default
  r.boolean("c", c);
  r.string("s", s);
  r.finish();
  EXPECT_TRUE(d.empty()) << d.format();
  EXPECT_EQ(a, 4);
  EXPECT_EQ(b, 500000000);
  EXPECT_EQ(missing, 7);
  EXPECT_TRUE(c);
  EXPECT_EQ(s, "x");
}

TEST(ObjectReader, CollectsEveryProblemWithItsPointer) {
  Diagnostics d;
  const auto j =
      nlohmann::json::parse(R"({"tp": 0, "sp": 1, "seq": 1.5, "mode": "selectve", "tpp": 2})");
  ObjectReader r(j, "/parallel", d);
  int tp = 1;
  bool sp = false;
  std::int64_t seq = 1;
  std::string mode;
  r.integer("tp", tp, 1, 64);
  r.boolean("sp", sp);
  r.integer("seq", seq, 1, 100);
  r.choice("mode", mode, {"none", "selective", "full"});
  r.integer("required_one", seq, 1, 2, true);
  r.finish();
  const std::string all = d.format();
  // Six problems (five bad values or keys and one missing key), all reported together.
  EXPECT_EQ(d.items().size(), 6u) << all;
  EXPECT_NE(all.find("/parallel/tp: must be an integer in [1, 64], got 0"), std::string::npos);
  EXPECT_NE(all.find("/parallel/sp: expected a boolean"), std::string::npos);
  EXPECT_NE(all.find("/parallel/seq: expected an integer"), std::string::npos);
  EXPECT_NE(all.find("did you mean \"selective\"?"), std::string::npos);
  EXPECT_NE(all.find("/parallel/required_one: is required"), std::string::npos);
  EXPECT_NE(all.find("/parallel/tpp: unknown key (did you mean \"tp\"?)"), std::string::npos);
  EXPECT_EQ(tp, 1);  // a rejected value leaves the default in place
}

TEST(ObjectReader, RejectsNonObjects) {
  Diagnostics d;
  ObjectReader r(nlohmann::json::array(), "/model", d);
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(d.items().size(), 1u);
  EXPECT_EQ(d.items()[0].path, "/model");
}

TEST(PointerJoin, EscapesSpecialCharacters) {
  // RFC 6901: "~" -> "~0", "/" -> "~1".
  EXPECT_EQ(pointer_join("/a", "b/c~d"), "/a/b~1c~0d");
}

// The path parse_json_text reports for an error (the InputError's first item).
std::string error_path(const std::string& text) {
  try {
    (void)parse_json_text(text, "t");
  } catch (const InputError& e) {
    return e.items().front().path;
  }
  return "no error";
}

TEST(ParseJsonText, DepthLimitIsExactlyKMaxJsonDepth) {
  // kMaxJsonDepth (64) nested arrays parse; one more is refused where it starts: 64 elements deep
  // (each the first, index 0), "/0" 64 times.
  const auto nested = [](int n) {
    return std::string(std::size_t(n), '[') + std::string(std::size_t(n), ']');
  };
  EXPECT_NO_THROW((void)parse_json_text(nested(kMaxJsonDepth), "t"));
  std::string expected;
  for (int i = 0; i < kMaxJsonDepth; ++i) expected += "/0";
  EXPECT_EQ(error_path(nested(kMaxJsonDepth + 1)), expected);
}

TEST(ParseJsonText, PointsAtTheFieldBeingRead) {
  // Duplicate key in the second object of an array under "a".
  EXPECT_EQ(error_path(R"({"a": [{"x": 1}, {"y": 1, "y": 2}]})"), "/a/1/y");
  // A number a double cannot hold, third element.
  EXPECT_EQ(error_path(R"({"b": {"c": [1, 2, 1e400]}})"), "/b/c/2");
  // The same key in different objects is fine.
  EXPECT_NO_THROW((void)parse_json_text(R"({"x": {"k": 1}, "y": {"k": 2}})", "t"));
  // A syntax error is the file's, not a field's: path "".
  EXPECT_EQ(error_path(R"({"a": 1,})"), "");
}

TEST(ParseJsonText, CallerPointerWins) {
  try {
    (void)parse_json_text(R"({"hidden_size": 1e400})", "cfg", std::string("/model/hf_config"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.items().front().path, "/model/hf_config");
    EXPECT_NE(e.items().front().message.find("/hidden_size"), std::string::npos);
  }
}

}  // namespace
}  // namespace shardsim
