// The sliding window's warnings (validate_detail.h): fused attention executes only the window's
// tiles (model/ops.h); what the window does not change is said where a user would expect it to.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <utility>

#include "simulator/model/ops.h"
#include "simulator/scenario/validate_detail.h"

namespace shardsim::validate_detail {

void warn_sliding_window(const Scenario& s, StrategyCheck& c) {
  const ModelConfig& m = s.model;
  if (m.sliding_window == 0) {
    for (const auto& [key, value] :
         {std::pair{"sliding_window_from_layer", m.sliding_window_from_layer},
          std::pair{"sliding_window_full_every", m.sliding_window_full_every}})
      if (value > 0)
        c.warnings.push_back(fmt::format(
            "model.{} = {} is ignored: model.sliding_window is 0 (no window)", key, value));
    return;
  }
  bool windowed = false;
  for (int l = 0; l < m.layers && !windowed; ++l) windowed = m.is_windowed_layer(l);
  if (!windowed) {
    c.warnings.push_back(fmt::format(
        "no layer uses model.sliding_window: model.sliding_window_from_layer = {} and "
        "model.sliding_window_full_every = {} leave none of the {} layers (model.layers)",
        m.sliding_window_from_layer, m.sliding_window_full_every, m.layers));
    return;
  }
  const std::int64_t window = m.sliding_window;
  const auto& t = s.training;
  if (window >= t.seq_len) return;  // every query sees its whole causal past anyway
  const std::string shorter = fmt::format(
      "model.sliding_window ({}) is shorter than training.seq_len ({})", window, t.seq_len);
  if (!t.flash_attention)
    c.warnings.push_back(shorter +
                         ", but unfused attention computes and masks every score, so the window "
                         "saves it nothing; fused attention (training.flash_attention: true) "
                         "executes only the window's");
  else if (attention_window(m, t.seq_len, true, t.attention_kernel) == 0)
    c.warnings.push_back(
        shorter +
        fmt::format(", but training.attention_kernel \"{}\" takes no window (it masks the "
                    "causal half's tiles instead), so attention is priced over the "
                    "whole causal sequence",
                    t.attention_kernel));
}

}  // namespace shardsim::validate_detail
