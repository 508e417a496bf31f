// Writing reports: to stdout, or to a file replaced atomically (never half written).
#pragma once

#include <string>

namespace shardsim {

// Writes `text` to `path` ("" or "-" = stdout). Files are written to a temporary sibling and
// renamed into place. Throws InputError (exit code 2) naming the path on failure.
void write_output(const std::string& path, const std::string& text);

}  // namespace shardsim
