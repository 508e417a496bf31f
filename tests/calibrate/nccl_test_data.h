// Loading nccl-tests logs of scenarios/measurements/nccl-tests (the shared set) and
// tests/data/nccl/heldout (published logs used only to test predictions) for the calibrate tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "calibrate/collective_fit.h"

namespace shardsim::calibrate::test {

namespace fs = std::filesystem;
inline const fs::path kNcclDir = fs::path(SHARDSIM_MEASUREMENTS_DIR) / "nccl-tests";
inline const fs::path kHeldoutDir = fs::path(SHARDSIM_TEST_DATA_DIR) / "nccl" / "heldout";

// The collectives of one log (a test failure and nothing when it does not parse).
inline std::vector<MeasuredCollective> load_log(const fs::path& p, PlacementHints hints = {},
                                                TimeColumn column = TimeColumn::kBest) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = parse_nccl_tests_log(text.str(), p.filename().string());
  if (auto* e = std::get_if<NcclTestsError>(&parsed)) {
    ADD_FAILURE() << e->text();
    return {};
  }
  auto m = measured_collectives(std::get<NcclTestsLog>(parsed), hints, column);
  if (auto* e = std::get_if<std::string>(&m)) {
    ADD_FAILURE() << *e;
    return {};
  }
  return std::get<std::vector<MeasuredCollective>>(m);
}

// Every *.log directly in `dir`, sorted by name.
inline std::vector<fs::path> logs_in(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".log") out.push_back(e.path());
  std::ranges::sort(out);
  return out;
}

}  // namespace shardsim::calibrate::test
