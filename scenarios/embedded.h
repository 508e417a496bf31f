// The shipped scenario files (models/, gpus/, clusters/, examples/) and the validation data
// (published/), embedded at build time.
#pragma once

#include <span>
#include <string_view>

namespace shardsim {

struct EmbeddedFile {
  std::string_view path;  // relative to scenarios/, e.g. "models/llama3-8b.json"
  std::string_view text;  // the file's bytes
};

// Sorted by path.
[[nodiscard]] std::span<const EmbeddedFile> embedded_presets();

// The published measurements and closed-form cases of the validation suite (scenarios/published/:
// CSV files with '#' source headers, and the licences that come with them), library
// shardsim_published. Paths relative to scenarios/, e.g.
// "published/mcore2024-h100-weak-scaling.csv".
[[nodiscard]] std::span<const EmbeddedFile> embedded_published();

}  // namespace shardsim
