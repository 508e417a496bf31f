// Lookup of the shipped presets (scenarios/{models,gpus,clusters,examples}/*.json, embedded in
// the binary at build time).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace shardsim {

enum class PresetKind { kModel, kGpu, kCluster, kExample, kFramework };

struct PresetEntry {
  std::string name;
  std::string description;
};

[[nodiscard]] std::string preset_folder(PresetKind kind);  // "models", "gpus", ...
// Entries of one kind, sorted by name.
[[nodiscard]] std::vector<PresetEntry> list_presets(PresetKind kind);
[[nodiscard]] std::vector<std::string> preset_names(PresetKind kind);
// The parsed preset file, or nullopt when no preset of that kind has this name.
[[nodiscard]] std::optional<nlohmann::json> find_preset(PresetKind kind, const std::string& name);
// InputError at `path` naming the unknown preset, a near-miss suggestion and the known names. A
// name that looks like a file (".json", a '/') is a file that cannot be opened where the caller
// `accepts_files`, else a file where only a preset name goes; one that starts with '{' is inline
// JSON where none is accepted.
[[noreturn]] void throw_unknown_preset(PresetKind kind, const std::string& name,
                                       const std::string& path, bool accepts_files = false);

}  // namespace shardsim
