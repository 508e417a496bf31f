// The name of a temporary file written beside its target and then renamed onto it, shared by the
// report writers (reports/output.cc) and the calibration's result files (kernels/common), so a
// file appears whole or not at all. Header-only: the calibration binaries do not link
// simulator/core.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace shardsim {

// `target`'s folder / (its file name + `suffix`), the file name cut so that the whole stays within
// the 255-byte file-name limit of Linux file systems: a legal name of up to 255 bytes keeps a
// usable temporary (found by review, 2026-11-29: a 250-byte name was refused as "File name too
// long"). REQUIRES: suffix.size() < 255.
[[nodiscard]] inline std::string sibling_path(const std::filesystem::path& target,
                                              std::string_view suffix) {
  constexpr std::size_t kNameMax = 255;
  std::string name = target.filename().string();
  if (name.size() + suffix.size() > kNameMax) name.resize(kNameMax - suffix.size());
  name += suffix;
  return (target.parent_path() / name).string();
}

}  // namespace shardsim
