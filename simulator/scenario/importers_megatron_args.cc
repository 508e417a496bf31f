#include "simulator/scenario/importers_megatron_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "simulator/core/diagnostics.h"
#include "simulator/model/model_config.h"
#include "simulator/scenario/strategy.h"

namespace shardsim::import_detail {
namespace {

// Megatron-LM's flags that take no value.
const std::set<std::string>& value_less_flags() {
  static const std::set<std::string> flags = {"--bf16",
                                              "--fp16",
                                              "--sequence-parallel",
                                              "--use-distributed-optimizer",
                                              "--swiglu",
                                              "--untie-embeddings-and-output-weights",
                                              "--group-query-attention",
                                              "--use-flash-attn",
                                              "--overlap-grad-reduce",
                                              "--overlap-param-gather",
                                              "--tp-comm-overlap",
                                              "--disable-bias-linear",
                                              "--add-qkv-bias",
                                              "--use-rotary-position-embeddings",
                                              "--accumulate-allreduce-grads-in-fp32",
                                              "--grad-reduce-in-bf16",
                                              "--no-gradient-accumulation-fusion",
                                              "--recompute-activations",
                                              "--checkpoint-activations",
                                              "--use-legacy-models",
                                              "--use-mcore-models"};
  return flags;
}

// Megatron-LM's options that take one or more values (argparse nargs='+').
const std::set<std::string>& list_options() {
  static const std::set<std::string> lists = {"--cp-comm-type",
                                              "--hierarchical-context-parallel-sizes"};
  return lists;
}

// An option name, not a value (negative numbers are values).
bool is_option(const std::string& s) {
  return s.starts_with("--") || (s.size() > 1 && s[0] == '-' &&
                                 !std::isdigit(static_cast<unsigned char>(s[1])) && s[1] != '.');
}

}  // namespace

MegatronArgs::MegatronArgs(const std::vector<std::string>& args, std::vector<std::string>& warnings)
    : warnings_(warnings) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!a.starts_with("--")) {
      warnings_.push_back(fmt::format("\"{}\": not an option; ignored", a));
      continue;
    }
    const std::size_t eq = a.find('=');
    if (eq != std::string::npos) {
      options_[a.substr(0, eq)] = a.substr(eq + 1);
    } else if (value_less_flags().count(a)) {
      flags_.insert(a);
    } else if (i + 1 < args.size() && !is_option(args[i + 1])) {
      options_[a] = args[++i];
      if (list_options().count(a))
        while (i + 1 < args.size() && !is_option(args[i + 1])) options_[a] += " " + args[++i];
    } else {
      flags_.insert(a);  // an unknown flag: warn_unread names it
    }
  }
}

// An option read for its value but given without one (argparse: "expected one argument").
void MegatronArgs::needs_value(const std::string& key) const {
  if (flags_.count(key)) throw InputError("", key + ": expected one argument");
}

std::int64_t MegatronArgs::integer(const std::string& key) {
  read_.insert(key);
  needs_value(key);
  const auto it = options_.find(key);
  if (it == options_.end()) return 0;
  std::size_t n = 0;
  long long v = 0;
  try {
    v = std::stoll(it->second, &n);
  } catch (const std::exception&) {
    n = 0;
  }
  if (n != it->second.size() || v < 1)
    throw InputError("", fmt::format("{} {}: expected an integer in [1, 2^53]", key, it->second));
  // 2^53: every larger value is refused by the scenario anyway, and products of two such
  // values (layers x ..., hidden x 4) stay far from 64-bit overflow.
  if (v > (std::int64_t{1} << 53))
    throw InputError("", fmt::format("{} {}: at most 2^53 (9007199254740992)", key, v));
  return v;
}

// At most kMaxParallelDegree, so products of three stay inside 64 bits.
std::int64_t MegatronArgs::degree(const std::string& key) {
  const std::int64_t v = integer(key);
  if (v > kMaxParallelDegree)
    throw InputError("", fmt::format("{} {}: at most {}", key, v, kMaxParallelDegree));
  return v;
}

std::string MegatronArgs::text(const std::string& key) {
  read_.insert(key);
  needs_value(key);
  const auto it = options_.find(key);
  return it == options_.end() ? "" : it->second;
}

bool MegatronArgs::given(const std::string& key) {
  read_.insert(key);
  needs_value(key);
  return options_.count(key) != 0;
}

bool MegatronArgs::flag(const std::string& key) {
  read_.insert(key);
  return flags_.count(key) > 0;
}

void MegatronArgs::warn_unread() {
  for (const auto& [k, v] : options_)
    if (!read_.count(k)) warnings_.push_back(k + " " + v + ": not modelled");
  for (const auto& f : flags_)
    if (!read_.count(f)) warnings_.push_back(f + ": not modelled");
}

namespace {

// Python's int() of a string: surrounding whitespace and a sign allowed; nullopt otherwise or
// beyond int64.
std::optional<long long> python_int(std::string_view text) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  std::string digits(text);
  const bool plus = digits.front() == '+';
  if (plus) digits.erase(0, 1);
  const std::size_t start = !plus && !digits.empty() && digits.front() == '-' ? 1 : 0;
  if (start == digits.size() || digits.find_first_not_of("0123456789", start) != std::string::npos)
    return std::nullopt;
  std::size_t used = 0;
  try {
    const long long v = std::stoll(digits, &used);
    if (used == digits.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// A Megatron layer pattern, the Python list expression moe_freq_type evaluates ("[1,1,1,0]*3",
// "([1]*3+[0]*1)*3", "([0]+[1]*23)"): lists of integers, '+' joining lists, '*' repeating one by
// an integer on either side, parentheses; only the characters Megatron's _eval_pattern lets
// through (digits , [ ] ( ) + *). nullopt when the text is not such an expression, nests
// parentheses more than 64 deep (the parser recurses) or makes more than 2^20 entries in all
// (too_long() then says so).
class PatternParser {
 public:
  explicit PatternParser(std::string_view text) : text_(text) {}
  std::optional<std::vector<long long>> parse() {
    if (text_.find_first_not_of("0123456789,[]()+*") != std::string_view::npos) return std::nullopt;
    auto v = sum();
    if (!v || pos_ != text_.size()) return std::nullopt;
    return v;
  }
  [[nodiscard]] bool too_long() const { return too_long_; }

 private:
  static constexpr std::size_t kMaxEntries = std::size_t{1} << 20;
  static constexpr int kMaxDepth = 64;
  // The character set admits no whitespace and no '-': nothing to skip, no negative entry.
  bool eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<long long> integer() {
    const std::size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '+') ++pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return python_int(text_.substr(start, pos_ - start));
  }
  std::optional<std::vector<long long>> sum() {
    auto v = product();
    while (v && eat('+')) {
      auto w = product();
      if (!w) return std::nullopt;
      if (v->size() + w->size() > kMaxEntries || !spend(w->size())) {
        too_long_ = true;
        return std::nullopt;
      }
      v->insert(v->end(), w->begin(), w->end());
    }
    return v;
  }
  std::optional<std::vector<long long>> repeat(std::vector<long long> v, long long times) {
    if (v.empty() || times <= 0) return std::vector<long long>{};  // as Python's list * n
    if (times == 1) return v;
    if (std::size_t(times) > kMaxEntries / v.size() || !spend(v.size() * std::size_t(times))) {
      too_long_ = true;
      return std::nullopt;
    }
    std::vector<long long> out;
    out.reserve(v.size() * std::size_t(times));
    for (long long i = 0; i < times; ++i) out.insert(out.end(), v.begin(), v.end());
    return out;
  }
  // Every entry the parse makes counts against one budget, so that many small steps cannot
  // add up to a long run (a chain of "*2+[1]" terms).
  bool spend(std::size_t entries) {
    made_ += entries;
    too_long_ = too_long_ || made_ > 16 * kMaxEntries;
    return !too_long_;
  }
  std::optional<std::vector<long long>> product() {
    std::optional<std::vector<long long>> v;
    if (pos_ < text_.size() && text_[pos_] != '[' && text_[pos_] != '(') {  // N * list
      const auto times = integer();
      if (!times || !eat('*')) return std::nullopt;
      auto w = atom();
      if (!w) return std::nullopt;
      v = repeat(std::move(*w), *times);
    } else {
      v = atom();
    }
    while (v && eat('*')) {
      const auto times = integer();
      if (!times) return std::nullopt;
      v = repeat(std::move(*v), *times);
    }
    return v;
  }
  std::optional<std::vector<long long>> atom() {
    if (eat('(')) {
      if (++depth_ > kMaxDepth) return std::nullopt;
      auto v = sum();
      --depth_;
      if (!v || !eat(')')) return std::nullopt;
      return v;
    }
    if (!eat('[')) return std::nullopt;
    std::vector<long long> v;
    do {
      if (eat(']')) return v;  // "[]", or a trailing comma, which Python allows
      const auto x = integer();
      if (!x) return std::nullopt;
      if (v.size() >= kMaxEntries || !spend(1)) {
        too_long_ = true;
        return std::nullopt;
      }
      v.push_back(*x);
    } while (eat(','));
    if (!eat(']')) return std::nullopt;
    return v;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  std::size_t made_ = 0;
  bool too_long_ = false;
};

}  // namespace

// Megatron's --window-size LEFT,RIGHT (megatron/training/arguments.py tuple_type: the text
// stripped of '(' and ')' at both ends, split at ',', each part Python's int(); TransformerConfig
// window_size, handed to Transformer Engine: query i attends keys i - LEFT to i + RIGHT, which the
// causal mask cuts at i): LEFT + 1 keys, LEFT -1 an infinite window (none).
// --window-attn-skip-freq (moe_freq_type): an integer N windows the layers whose 1-based number
// is not a multiple of N (megatron/core/transformer/utils.py is_layer_window_attention:
// layer_number % N != 0; Python's % makes -N read as N, and +-1 windows none), or a list pattern,
// one 0/1 per layer (1: windowed). Given --window-size, all three window keys are written, so a
// --model base's own window does not stay beside Megatron's; absent, the base keeps its own.
void read_megatron_window(MegatronArgs& a, nlohmann::json& model, std::int64_t layers,
                          const std::function<void(std::string)>& warn) {
  if (!a.given("--window-size")) {
    if (a.given("--window-attn-skip-freq"))
      warn(
          fmt::format("--window-attn-skip-freq {}: no effect without --window-size (Megatron "
                      "windows no layer then)",
                      a.text("--window-attn-skip-freq")));
    return;
  }
  const std::string given = a.text("--window-size");
  const auto bad = [&] {
    return InputError("", fmt::format("--window-size {}: expected LEFT,RIGHT, two integers of at "
                                      "least -1 (-1: an infinite window), as 4095,0",
                                      given));
  };
  std::string_view text = given;
  while (!text.empty() && (text.front() == '(' || text.front() == ')')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == '(' || text.back() == ')')) text.remove_suffix(1);
  const std::size_t comma = text.find(',');
  if (comma == std::string_view::npos || text.find(',', comma + 1) != std::string_view::npos)
    throw bad();
  const auto left = python_int(text.substr(0, comma));
  const auto right = python_int(text.substr(comma + 1));
  constexpr long long kMaxLeft = (1LL << 32) - 1;  // model.sliding_window's bound, less one
  if (!left || !right || *left < -1 || *right < -1 || *left > kMaxLeft) throw bad();
  model["sliding_window"] = *left < 0 ? 0 : *left + 1;
  model["sliding_window_from_layer"] = 0;
  model["sliding_window_full_every"] = 0;
  if (!a.given("--window-attn-skip-freq")) return;
  // Read (and refused when Megatron would fail) even under an infinite window, which Megatron
  // still passes through is_layer_window_attention.
  const std::string skip = a.text("--window-attn-skip-freq");
  WindowLayers w;
  bool expressible = true, none = false;  // none: no layer slides
  if (skip.find('[') == std::string::npos) {
    const auto n = python_int(skip);
    if (!n || *n == 0)  // Megatron divides by it
      throw InputError("", fmt::format("--window-attn-skip-freq {}: expected a non-zero integer "
                                       "or a list pattern",
                                       skip));
    const long long every = *n < 0 ? -*n : *n;
    // 1: every layer number is a multiple, none slides; past the last layer: every layer slides
    none = every == 1;
    if (every > 1) w.full_every = int(std::min<long long>(every, 1 << 20));
  } else {
    PatternParser parser(skip);
    const auto pattern = parser.parse();
    if (!pattern)
      throw InputError(
          "", fmt::format("--window-attn-skip-freq {}: {}", skip,
                          parser.too_long() ? "the pattern makes more entries than shardsim reads "
                                              "(2^20 layers)"
                                            : "not a list pattern Megatron evaluates (lists of "
                                              "integers, '+', '*', parentheses; digits , [ ] ( ) "
                                              "+ * only)"));
    if (layers <= 0)
      throw InputError("", fmt::format("--window-attn-skip-freq {}: a list pattern needs "
                                       "--num-layers to be checked against",
                                       skip));
    if (std::int64_t(pattern->size()) < layers)  // Megatron indexes it by layer: IndexError
      throw InputError("", fmt::format("--window-attn-skip-freq {}: {} entries for --num-layers "
                                       "{} (Megatron reads one per layer)",
                                       skip, pattern->size(), layers));
    std::vector<bool> windowed;  // entries past the last layer are never read
    for (std::int64_t l = 0; l < layers; ++l) windowed.push_back((*pattern)[std::size_t(l)] != 0);
    const auto found = window_layers_of(windowed);
    expressible = found.has_value();
    if (found) w = *found;
    none = found && found->from_layer >= layers;
  }
  if (*left < 0) return;
  if (!expressible) {
    model["sliding_window"] = 0;
    warn(
        fmt::format("--window-size {} with --window-attn-skip-freq {}: that order of windowed "
                    "and full layers is not modelled (full layers first, then every N-th, is); "
                    "attention is priced over the whole sequence on every layer",
                    given, skip));
  } else if (none) {
    model["sliding_window"] = 0;
  } else {
    model["sliding_window_from_layer"] = w.from_layer;
    model["sliding_window_full_every"] = w.full_every;
  }
}

}  // namespace shardsim::import_detail
