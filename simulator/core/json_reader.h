// Strict reading of JSON objects into plain structs. Every getter registers its key as known, so
// `finish()` can reject unknown keys with the JSON pointer, the allowed keys and a near-miss
// suggestion. Problems are collected in a Diagnostics, never thrown one at a time.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "simulator/core/diagnostics.h"

namespace shardsim {

// JSON pointer for `key` under `parent` ("/model" + "layers" -> "/model/layers"), escaping ~ and /.
[[nodiscard]] std::string pointer_join(std::string_view parent, std::string_view key);

// Limits on JSON input (README "Guarantees"): nesting depth of any document (the deepest shipped
// file, a fitted hardware profile, nests 5 levels), and the size of a JSON file a command reads
// (scenarios, profiles, configs, baselines; the shipped files are under 10 kB and a whole-suite
// report about 1.2 MB). Checked before anything recursive touches the value.
inline constexpr int kMaxJsonDepth = 64;
inline constexpr std::uintmax_t kMaxJsonFileBytes = std::uintmax_t{16} << 20;  // 16 MiB

// Parses JSON text read from `source` (a quoted file name, or "--set KEY", shown in messages),
// strictly: at most kMaxJsonDepth levels of arrays and objects, no key twice in one object,
// numbers that a double holds (1e400 is refused). Throws InputError, never anything else, for
// any input: its path is `pointer` when given (the field that named the file, e.g.
// /model/hf_config), else the offending field's JSON pointer in the document ("" for a syntax
// error, whose message gives the byte, line and column); the message names the source and field.
[[nodiscard]] nlohmann::json parse_json_text(
    std::string_view text, const std::string& source,
    const std::optional<std::string>& pointer = std::nullopt);

// Whether `path` names something that exists (a file, a directory, a device), symbolic links
// followed; a loop of them is an InputError naming `flag` (std::filesystem::exists throws
// there, which reached the user as an internal failure, exit 3: found by review, 2026-11-28).
[[nodiscard]] bool path_exists(const std::string& path, const std::string& flag);

// The whole content of the file `path`, which must be a readable regular file (or a pipe) of at
// most `max_bytes`; InputError(`flag`, message naming the path) otherwise. The size is checked
// before reading, so a huge file is refused at once.
[[nodiscard]] std::string read_text_file(const std::string& path, std::uintmax_t max_bytes,
                                         const std::string& flag);

// JSON text of `j` (indent < 0: one line). Invalid UTF-8 in strings is replaced (U+FFFD) rather
// than thrown, so reports and messages never fail on odd input bytes.
[[nodiscard]] std::string json_text(const nlohmann::json& j, int indent = -1);

// A JSON value's type for messages: "string", "integer", "number", "boolean", "object", ...
[[nodiscard]] std::string json_type_name(const nlohmann::json& j);

// The name an enumeration value has in a (name, value) table; empty if absent.
template <class E>
[[nodiscard]] std::string enum_name(const std::vector<std::pair<std::string, E>>& table, E value) {
  for (const auto& [name, v] : table)
    if (v == value) return name;
  return {};
}

class ObjectReader {
 public:
  // Records an error at `path` if `j` is not an object (the getters then do nothing).
  ObjectReader(const nlohmann::json& j, std::string path, Diagnostics& diags);

  [[nodiscard]] bool ok() const { return obj_ != nullptr; }
  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] const std::string& path() const { return path_; }

  // Getters: when the key is absent, `out` keeps its default (an error if `required`).
  // Integers accept JSON integers and integral floats (5e8); the range is inclusive.
  void integer(std::string_view key, std::int64_t& out, std::int64_t min, std::int64_t max,
               bool required = false);
  void integer(std::string_view key, int& out, int min, int max, bool required = false);
  // Real numbers in [min, max] (NaN and infinities are rejected by JSON itself).
  void number(std::string_view key, double& out, double min, double max, bool required = false);
  void boolean(std::string_view key, bool& out, bool required = false);
  void string(std::string_view key, std::string& out, bool required = false);
  // A string that must be one of `allowed` (exact match; suggestion for near misses).
  void choice(std::string_view key, std::string& out, const std::vector<std::string>& allowed,
              bool required = false);
  // Enum through a name table.
  template <class E>
  void enumeration(std::string_view key, E& out,
                   const std::vector<std::pair<std::string, E>>& table, bool required = false) {
    std::vector<std::string> names;
    for (const auto& [name, value] : table) names.push_back(name);
    std::string chosen;
    choice(key, chosen, names, required);
    for (const auto& [name, value] : table)
      if (name == chosen) out = value;
  }
  // The raw value of a key (nullptr if absent); the key counts as known.
  const nlohmann::json* raw(std::string_view key);
  // A nested object (nullptr if absent; error if present but not an object).
  const nlohmann::json* object(std::string_view key);
  // Registers a key as known without reading it (read elsewhere).
  void allow(std::string_view key);

  // Reports every key that no getter asked for, with a suggestion and the allowed keys.
  void finish();

 private:
  const nlohmann::json* find(std::string_view key, bool required);
  void type_error(std::string_view key, std::string_view expected, const nlohmann::json& got);

  const nlohmann::json* obj_ = nullptr;
  std::string path_;
  Diagnostics& diags_;
  std::vector<std::string> known_;
};

}  // namespace shardsim
