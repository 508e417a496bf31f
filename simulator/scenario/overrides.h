// `--set KEY=VALUE` overrides of a scenario document, applied before it is read.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardsim {

// Applies one "a.b.c=VALUE" override to `root` (creating objects on the way). VALUE is JSON when
// it parses (an object or array strictly, as files are), else a bare string; null removes the
// key. InputError for a malformed assignment or value.
void apply_override(nlohmann::json& root, const std::string& assignment);

// Refuses (InputError naming the later --set) an order of overrides that would lose one silently:
// a section set whole after a key inside it, or a section given twice as an object. The values
// apply in order, so a key set after its section applies inside it, and null or a name after an
// object resets or replaces it on purpose.
void check_override_order(const std::vector<std::string>& overrides);

}  // namespace shardsim
