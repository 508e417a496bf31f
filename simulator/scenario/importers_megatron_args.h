#pragma once

// Megatron-LM's command line as its argparse reads it, for the Megatron importer
// (importers_megatron.cc).

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace shardsim::import_detail {

// Flags take no value; any other "--name" takes the next argument unless that is an option
// itself ("--name=value" works too). Each accessor marks its key as read, so that
// `warn_unread` can name every option the importer never looked at.
class MegatronArgs {
 public:
  // Arguments that are not options are skipped with a warning appended to `warnings`.
  MegatronArgs(const std::vector<std::string>& args, std::vector<std::string>& warnings);

  // The value as an integer, 0 when absent. InputError (exit 2) when given without a value, not
  // an integer, below 1 or above 2^53.
  std::int64_t integer(const std::string& key);
  // integer(), at most kMaxParallelDegree (a parallel degree, or layers per virtual stage).
  std::int64_t degree(const std::string& key);
  // The value as given, "" when absent; an option of several values (--cp-comm-type) has them
  // separated by single spaces. InputError when given without a value.
  std::string text(const std::string& key);
  bool flag(const std::string& key);
  // Whether the option was given with a value (possibly empty: "--key="); marks it read.
  bool given(const std::string& key);

  // Appends "<option>: not modelled" for every option and flag no accessor read.
  void warn_unread();

 private:
  void needs_value(const std::string& key) const;

  std::map<std::string, std::string> options_;
  std::set<std::string> flags_;  // given without a value
  std::set<std::string> read_;
  std::vector<std::string>& warnings_;
};

// Megatron's --window-size and --window-attn-skip-freq onto `model` (sliding_window,
// sliding_window_from_layer, sliding_window_full_every); `layers` is --num-layers (0: not given)
// for the pattern's length; `warn` receives what is left out. InputError on a malformed value.
void read_megatron_window(MegatronArgs& a, nlohmann::json& model, std::int64_t layers,
                          const std::function<void(std::string)>& warn);

// Megatron's --cp-comm-type (with --hierarchical-context-parallel-sizes for a2a+p2p) onto
// parallel.cp_comm_type when `cp` (--context-parallel-size) > 1; `layers` is --num-layers (0: not
// given) for a per-layer list; `warn` receives what is priced otherwise. InputError on a value
// Megatron or Transformer Engine refuses (importers_megatron_cp.cc).
void read_megatron_cp_comm(MegatronArgs& a, std::int64_t layers, std::int64_t cp,
                           nlohmann::json& parallel, const std::function<void(std::string)>& warn);

}  // namespace shardsim::import_detail
