#include "simulator/scenario/presets.h"

#include <fmt/format.h>

#include "scenarios/embedded.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/strings.h"

namespace shardsim {
namespace {

// "models/llama3-8b.json" -> ("models", "llama3-8b")
bool split_path(std::string_view path, std::string_view& folder, std::string_view& stem) {
  const auto slash = path.find('/');
  if (slash == std::string_view::npos || !path.ends_with(".json")) return false;
  folder = path.substr(0, slash);
  stem = path.substr(slash + 1, path.size() - slash - 1 - 5);
  return stem.find('/') == std::string_view::npos;
}

}  // namespace

std::string preset_folder(PresetKind kind) {
  switch (kind) {
    case PresetKind::kModel:
      return "models";
    case PresetKind::kGpu:
      return "gpus";
    case PresetKind::kCluster:
      return "clusters";
    case PresetKind::kExample:
      return "examples";
    case PresetKind::kFramework:
      return "frameworks";
  }
  return "models";
}

std::vector<PresetEntry> list_presets(PresetKind kind) {
  std::vector<PresetEntry> out;
  const std::string want = preset_folder(kind);
  for (const auto& f : embedded_presets()) {
    std::string_view folder, stem;
    if (!split_path(f.path, folder, stem) || folder != want) continue;
    const auto j = nlohmann::json::parse(f.text, nullptr, false);
    std::string description;
    if (j.is_object() && j.contains("description") && j["description"].is_string())
      description = j["description"].get<std::string>();
    out.push_back({std::string(stem), description});
  }
  return out;
}

std::vector<std::string> preset_names(PresetKind kind) {
  std::vector<std::string> names;
  for (const auto& e : list_presets(kind)) names.push_back(e.name);
  return names;
}

std::optional<nlohmann::json> find_preset(PresetKind kind, const std::string& name) {
  const std::string want = preset_folder(kind);
  for (const auto& f : embedded_presets()) {
    std::string_view folder, stem;
    if (split_path(f.path, folder, stem) && folder == want && stem == name)
      return nlohmann::json::parse(f.text);  // shipped files are validated by the tests
  }
  return std::nullopt;
}

void throw_unknown_preset(PresetKind kind, const std::string& name, const std::string& path,
                          bool accepts_files) {
  // What looks like a file or inline JSON is said to be so, rather than listed against the preset
  // names (found by review, 2026-11-27: `--network /nonexistent.json` was an unknown clusters
  // preset).
  if (name.ends_with(".json") || name.find('/') != std::string::npos) {
    if (accepts_files)
      throw InputError(path, fmt::format("cannot open \"{}\": no such file (and no {} preset has "
                                         "that name)",
                                         name, preset_folder(kind)));
    throw InputError(path,
                     fmt::format("\"{}\": this takes the name of a {} preset, not a file{}", name,
                                 preset_folder(kind),
                                 kind == PresetKind::kModel ? " (a model's config file goes in "
                                                              "model.hf_config)"
                                                            : ""));
  }
  if (name.starts_with("{"))
    throw InputError(
        path, accepts_files ? fmt::format("inline JSON is not accepted here: give a {} preset name "
                                          "or the path of a JSON file",
                                          preset_folder(kind))
                            : fmt::format("\"{}\" is a string, not a {} preset name (where an "
                                          "object is accepted, give it as JSON, not as a string)",
                                          abbreviated(name), preset_folder(kind)));
  const auto names = preset_names(kind);
  const std::string guess = nearest(name, names);
  throw InputError(
      path,
      fmt::format("unknown {} preset \"{}\"{}; known: {}", preset_folder(kind), name,
                  guess.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", guess), join(names)));
}

}  // namespace shardsim
