// Megatron-LM's --cp-comm-type onto parallel.cp_comm_type (importers_megatron_args.h).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "simulator/core/diagnostics.h"
#include "simulator/scenario/importers_megatron_args.h"

namespace shardsim::import_detail {

// --cp-comm-type (nargs='+': one type, or one per layer) onto parallel.cp_comm_type, with
// context parallelism (cp > 1; Megatron checks the list's length and Transformer Engine the
// names only then). Whatever cp, Megatron asserts that --hierarchical-context-parallel-sizes
// multiply to cp and that a2a+p2p anywhere in the list has them. Megatron hands the name to
// Transformer Engine as given, which knows p2p, all_gather, a2a and a2a+p2p (Megatron's help text
// spells "allgather", which Transformer Engine refuses: taken as meant, warned). Per-layer types
// that differ are priced as the first layer's, with a warning. a2a+p2p runs as a2a inside groups of
// --hierarchical-context-parallel-sizes' first size and p2p across its second (Megatron requires
// those sizes, their product cp): Transformer Engine runs a level of size 1 as the other alone; two
// real levels are priced as p2p, warned.
void read_megatron_cp_comm(MegatronArgs& a, std::int64_t layers, std::int64_t cp,
                           nlohmann::json& parallel, const std::function<void(std::string)>& warn) {
  const bool given = a.given("--cp-comm-type");
  const std::string text = a.text("--cp-comm-type");
  const std::string sizes = a.text("--hierarchical-context-parallel-sizes");
  const auto words = [](const std::string& line) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at < line.size();) {
      const std::size_t end = std::min(line.find_first_of(" \t", at), line.size());
      if (end > at) out.push_back(line.substr(at, end - at));
      at = end + 1;
    }
    return out;
  };
  const std::vector<std::string> types = words(text);
  // Megatron's own checks, whatever the context-parallel size (arguments.py): the levels'
  // product is cp, and a2a+p2p anywhere needs the levels.
  std::vector<std::int64_t> level;
  for (const std::string& word : words(sizes)) {
    if (word.find_first_not_of("0123456789") != std::string::npos || word.size() > 7 ||
        std::stoll(word) < 1)
      throw InputError(
          "", "--hierarchical-context-parallel-sizes " + sizes + ": expected positive integers");
    level.push_back(std::stoll(word));
  }
  std::int64_t product = 1;  // each level below 10^7, so at most 2 of them past cp's 2^20
  for (const std::int64_t l : level)
    if ((product *= l) > cp) break;
  if (!level.empty() && product != cp)
    throw InputError("", fmt::format("--hierarchical-context-parallel-sizes {}: their product "
                                     "must be --context-parallel-size {}",
                                     sizes, cp));
  if (std::ranges::find(types, "a2a+p2p") != types.end() && level.empty())
    throw InputError("",
                     "--cp-comm-type a2a+p2p needs --hierarchical-context-parallel-sizes "
                     "(Megatron asserts it)");
  if (!given || cp <= 1) return;
  if (types.empty())
    throw InputError("", "--cp-comm-type: expected p2p, all_gather, a2a or a2a+p2p");
  for (const std::string& type : types)
    if (type != "p2p" && type != "a2a" && type != "all_gather" && type != "allgather" &&
        type != "a2a+p2p")
      throw InputError("", fmt::format("--cp-comm-type {}: expected p2p, all_gather, a2a or "
                                       "a2a+p2p",
                                       type));
  if (types.size() > 1 && layers > 0 && std::int64_t(types.size()) != layers)
    throw InputError("", fmt::format("--cp-comm-type: {} types for --num-layers {} (Megatron "
                                     "takes one, or one per layer)",
                                     types.size(), layers));
  std::string type = types.front();
  if (std::ranges::any_of(types, [&](const std::string& x) { return x != type; }))
    warn(
        fmt::format("--cp-comm-type {}: different types per layer are not modelled; every layer "
                    "is priced as the first's, {}",
                    text, type));
  if (type == "allgather") {
    warn(
        "--cp-comm-type allgather: Transformer Engine names it all_gather and refuses "
        "\"allgather\"; imported as all_gather");
    type = "all_gather";
  }
  if (type == "a2a+p2p") {
    // Two levels, [a2a, p2p] (Transformer Engine's cp_group pair).
    if (level.size() != 2)
      throw InputError("", fmt::format("--cp-comm-type a2a+p2p needs two "
                                       "--hierarchical-context-parallel-sizes, A2A P2P (got "
                                       "\"{}\")",
                                       sizes));
    if (level[1] == 1 || level[0] == 1) {
      type = level[1] == 1 ? "a2a" : "p2p";
    } else {
      warn(
          fmt::format("--cp-comm-type a2a+p2p (all-to-all inside groups of {}, the ring across "
                      "{} of them) is not modelled; priced as p2p over the whole "
                      "context-parallel group",
                      level[0], level[1]));
      type = "p2p";
    }
  }
  parallel["cp_comm_type"] = type;
}

}  // namespace shardsim::import_detail
