// The shipped scenario files (models/, gpus/, clusters/, examples/), embedded at build time.
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

}  // namespace shardsim
