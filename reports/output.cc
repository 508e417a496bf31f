#include "reports/output.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "simulator/core/diagnostics.h"

namespace shardsim {

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError("", "cannot write \"" + path + "\"");
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError("", "writing \"" + path + "\" failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw InputError("", "cannot write \"" + path + "\": " + ec.message());
  }
}

}  // namespace shardsim
