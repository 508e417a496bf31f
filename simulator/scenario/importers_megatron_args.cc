#include "simulator/scenario/importers_megatron_args.h"

#include <fmt/format.h>

#include <cctype>
#include <exception>
#include <string>
#include <utility>

#include "simulator/core/diagnostics.h"
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
                                              "--recompute-activations",
                                              "--checkpoint-activations",
                                              "--use-legacy-models",
                                              "--use-mcore-models"};
  return flags;
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

// Megatron's --window-size LEFT,RIGHT (megatron/training/arguments.py tuple_type; TransformerConfig
// window_size, handed to Transformer Engine: query i attends keys i - LEFT to i + RIGHT, which the
// causal mask cuts at i): LEFT + 1 keys, -1 an infinite window (none). --window-attn-skip-freq N
// makes every N-th layer (1-based) attend to the whole sequence (megatron/core/transformer/
// utils.py is_layer_window_attention: layer_number % N != 0 slides):
// model.sliding_window_full_every. Its list form ("[1,1,1,0]*3") is a pattern the scenario
// cannot express: then the window is left out and a warning says so (attention priced whole).
void read_megatron_window(MegatronArgs& a, nlohmann::json& model,
                          const std::function<void(std::string)>& warn) {
  std::string text = a.text("--window-size");
  if (text.empty()) return;
  const std::string given = text;
  if (text.size() >= 2 && text.front() == '(' && text.back() == ')')
    text = text.substr(1, text.size() - 2);
  const auto bad = [&] {
    return InputError("", fmt::format("--window-size {}: expected LEFT,RIGHT, two integers of at "
                                      "least -1 (-1: an infinite window), as 4095,0",
                                      given));
  };
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos) throw bad();
  long long left = 0, right = 0;
  for (const auto& [part, out] :
       {std::pair{text.substr(0, comma), &left}, std::pair{text.substr(comma + 1), &right}}) {
    std::size_t used = 0;
    try {
      *out = std::stoll(part, &used);
    } catch (const std::exception&) {
      throw bad();
    }
    if (used != part.size() || *out < -1 || *out > (1LL << 32)) throw bad();
  }
  if (left < 0) return;  // an infinite window looks back over the whole sequence
  const std::string skip = a.text("--window-attn-skip-freq");
  if (!skip.empty()) {
    if (skip.find_first_not_of("0123456789") != std::string::npos || skip.size() > 7) {
      warn(
          fmt::format("--window-size {} with --window-attn-skip-freq {}: a list of windowed and "
                      "full layers is not modelled (an integer N is); attention is priced over "
                      "the whole sequence on every layer",
                      given, skip));
      return;
    }
    const int every = std::stoi(skip);
    if (every < 1)  // Megatron divides by it
      throw InputError("", fmt::format("--window-attn-skip-freq {}: expected a positive integer "
                                       "or a list",
                                       skip));
    model["sliding_window_full_every"] = every;
  }
  model["sliding_window"] = left + 1;
}

}  // namespace shardsim::import_detail
