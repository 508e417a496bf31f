// A plan that cannot run is a result, not an error: each reason has a stable code (for search
// counts and CI gating), the JSON pointer of the setting that decides it, and a message with the
// numbers and units.
#pragma once

#include <string>

namespace shardsim {

struct Infeasibility {
  std::string
      code;  // "interleaved_microbatches", "ep_group", "memory", "host_memory", "zero3_prefetch"
  std::string path;     // JSON pointer of the deciding setting
  std::string message;  // names the numbers, e.g. "needs 91.3 GiB, has 80 GiB"
};

}  // namespace shardsim
