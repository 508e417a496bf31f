// Megatron-LM's --cp-comm-type onto parallel.cp_comm_type (importers_megatron_args.h).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "simulator/core/diagnostics.h"
#include "simulator/scenario/importers_megatron_args.h"

namespace shardsim::import_detail {

// --cp-comm-type (nargs='+': one type, or one per layer) onto parallel.cp_comm_type, with
// context parallelism (cp > 1; Megatron checks the list only then, and Transformer Engine never
// sees it otherwise). Megatron hands the name to Transformer Engine as given, which knows p2p,
// all_gather, a2a and a2a+p2p (Megatron's help text spells "allgather", which Transformer Engine
// refuses: taken as meant, warned). Per-layer types that differ are priced as the first layer's,
// with a warning. a2a+p2p runs as a2a inside groups of --hierarchical-context-parallel-sizes'
// first size and p2p across its second (Megatron requires those sizes, their product cp):
// Transformer Engine runs a level of size 1 as the other alone; two real levels are priced as
// p2p, warned.
void read_megatron_cp_comm(MegatronArgs& a, std::int64_t layers, std::int64_t cp,
                           nlohmann::json& parallel, const std::function<void(std::string)>& warn) {
  const bool given = a.given("--cp-comm-type");
  const std::string text = a.text("--cp-comm-type");
  const std::string sizes = a.text("--hierarchical-context-parallel-sizes");
  if (!given || cp <= 1) return;
  std::vector<std::string> types;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find_first_of(" \t", at), text.size());
    if (end > at) types.push_back(text.substr(at, end - at));
    at = end + 1;
  }
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
    std::vector<std::int64_t> level;
    for (std::size_t at = 0; at < sizes.size();) {
      const std::size_t end = std::min(sizes.find(' ', at), sizes.size());
      const std::string word = sizes.substr(at, end - at);
      if (!word.empty()) {
        if (word.find_first_not_of("0123456789") != std::string::npos || word.size() > 7)
          throw InputError("", "--hierarchical-context-parallel-sizes " + sizes +
                                   ": expected two positive integers");
        level.push_back(std::stoll(word));
      }
      at = end + 1;
    }
    if (level.size() != 2 || level[0] < 1 || level[1] < 1 || level[0] * level[1] != cp)
      throw InputError("", fmt::format("--cp-comm-type a2a+p2p needs "
                                       "--hierarchical-context-parallel-sizes A2A P2P whose "
                                       "product is --context-parallel-size {} (got \"{}\")",
                                       cp, sizes));
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
