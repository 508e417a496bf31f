#include "simulator/core/diagnostics.h"

namespace shardsim {
namespace {

std::string join(const std::vector<Diagnostic>& items) {
  std::string out;
  for (const auto& d : items) {
    out += "error: ";
    if (!d.path.empty()) out += d.path + ": ";
    out += d.message;
    out += '\n';
  }
  return out;
}

}  // namespace

void Diagnostics::error(std::string path, std::string message) {
  items_.push_back({std::move(path), std::move(message)});
}

std::string Diagnostics::format() const {
  return join(items_);
}

void Diagnostics::throw_if_any() const {
  if (!items_.empty()) throw InputError(items_);
}

InputError::InputError(std::vector<Diagnostic> items)
    : std::runtime_error(join(items)), items_(std::move(items)) {}

InputError::InputError(std::string path, std::string message)
    : InputError(std::vector<Diagnostic>{{std::move(path), std::move(message)}}) {}

void throw_with_flag(const Diagnostics& d, const std::string& flag, const std::string& file) {
  std::vector<Diagnostic> items;
  for (const auto& e : d.items()) items.push_back({flag + " " + file + ": " + e.path, e.message});
  throw InputError(items);
}

}  // namespace shardsim
