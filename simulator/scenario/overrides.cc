// --set overrides (overrides.h).
#include "simulator/scenario/overrides.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/core/strings.h"

namespace shardsim {
namespace {

// A --set value: JSON (strictly, as files are: parse_json_text) when it is an object or array,
// else JSON when it parses (numbers, true, null, "quoted"), else a bare string
// (--set cluster.gpu=h100-sxm). `pointer` is the key's JSON pointer, under which the value's
// errors are named.
nlohmann::json parse_value(const std::string& key, const std::string& pointer,
                           const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    try {
      return parse_json_text(text, "--set " + key);
    } catch (const InputError& e) {
      // The value's pointers are below the key: /parallel/tp/a, not /a (found by review,
      // 2026-11-28).
      std::vector<Diagnostic> items = e.items();
      for (Diagnostic& d : items)
        d.path = d.path.empty() || d.path == "/" ? pointer : pointer + d.path;
      throw InputError(std::move(items));
    }
  }
  auto v = nlohmann::json::parse(text, nullptr, false);
  if (!v.is_discarded()) return v;
  // A JSON number a double cannot hold (1e400) was taken as a bare string, so the field said "got
  // string" (found by review, 2026-11-29); files say it is out of range. Other text ("+32",
  // "032", ".5") stays a bare string.
  static const std::regex kNumber(R"(-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)");
  if (std::regex_match(text, kNumber) && std::isinf(std::strtod(text.c_str(), nullptr)))
    throw InputError(pointer, fmt::format("--set {}={}: a number a double cannot hold", key, text));
  return text;
}

// Removes the dotted `key` from `root` (after apply_override created it as null).
void erase_path(nlohmann::json& root, const std::string& key) {
  nlohmann::json* parent = &root;
  std::size_t start = 0, dot;
  while ((dot = key.find('.', start)) != std::string::npos) {
    parent = &(*parent)[key.substr(start, dot - start)];
    start = dot + 1;
  }
  parent->erase(key.substr(start));
}

}  // namespace

void apply_override(nlohmann::json& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(
        "", fmt::format("--set \"{}\": expected KEY=VALUE, e.g. parallel.tp=4", assignment));
  const std::string key = assignment.substr(0, eq);
  if (std::count(key.begin(), key.end(), '.') >= kMaxJsonDepth)
    throw InputError("", fmt::format("--set: key \"{}...\" has more than {} parts",
                                     key.substr(0, 40), kMaxJsonDepth));
  nlohmann::json* node = &root;
  std::string path;
  std::size_t start = 0;
  while (true) {
    const auto dot = key.find('.', start);
    const std::string part = key.substr(start, dot - start);
    if (part.empty()) throw InputError("", fmt::format("--set \"{}\": empty key part", key));
    path = pointer_join(path, part);
    if (!node->is_object())
      throw InputError(path, fmt::format("--set {}: parent is not an object", key));
    node = &(*node)[part];
    if (dot == std::string::npos) break;
    if (node->is_null()) *node = nlohmann::json::object();
    start = dot + 1;
  }
  nlohmann::json value = parse_value(key, path, assignment.substr(eq + 1));
  if (value.is_null()) {  // KEY=null removes the key: back to its default or derived value
    *node = nlohmann::json();
    erase_path(root, key);
    return;
  }
  *node = std::move(value);
}

void check_override_order(const std::vector<std::string>& overrides) {
  // The values apply in order: a whole section set after a key inside it would drop that key
  // silently (found by review, 2026-11-27: `--set parallel.zero=3 --set 'parallel={"tp":4}'`
  // ran ZeRO-0), and so would a section given twice as an object (found by review, 2026-11-29:
  // `--set 'parallel={"tp":4}' --set 'parallel={"zero":1}'` ran tp 1). A key set after its
  // section applies inside it; null resets a section on purpose, and what came before a reset
  // is not lost by what follows it (review, 2026-11-29: object, null, object was refused).
  // The value after '=' without surrounding whitespace ("" when there is no '=': apply_override
  // refuses that assignment).
  const auto value_of = [](const std::string& assignment) {
    const auto eq = assignment.find('=');
    if (eq == std::string::npos) return std::string();
    const auto first = assignment.find_first_not_of(" \t\n\r", eq + 1);
    if (first == std::string::npos) return std::string();
    return assignment.substr(first, assignment.find_last_not_of(" \t\n\r") - first + 1);
  };
  for (std::size_t j = 0; j < overrides.size(); ++j) {
    const std::string section = overrides[j].substr(0, overrides[j].find('='));
    const std::string value = value_of(overrides[j]);
    if (value == "null") continue;  // a reset loses what it means to
    for (std::size_t i = j; i-- > 0;) {
      const std::string key = overrides[i].substr(0, overrides[i].find('='));
      if (key.starts_with(section + "."))
        throw InputError("--set " + abbreviated(overrides[j]),
                         fmt::format("replaces the whole {} after --set {} set a key inside it, "
                                     "which would be lost; give --set {} first",
                                     section, key, section));
      if (key != section) continue;
      // The last whole-section value before this one: an object whose keys would be lost, or a
      // reset or name before which nothing more is looked at.
      if (value.starts_with('{') && value_of(overrides[i]).starts_with('{'))
        throw InputError("--set " + abbreviated(overrides[j]),
                         fmt::format("replaces the whole {} that an earlier --set {}={{...}} gave, "
                                     "whose keys would be lost; give them in one object",
                                     section, key));
      break;
    }
  }
}

}  // namespace shardsim
