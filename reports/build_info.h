// What built this binary, for reports to say what produced them (a CI artifact names its build).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace shardsim {

[[nodiscard]] std::string tool_version();
// {"git_revision": "0123abcd4567" (or "...-dirty", "unknown"), "build_type": "Release",
//  "compiler": "GNU 12.2.0"}
[[nodiscard]] nlohmann::json build_json();

}  // namespace shardsim
