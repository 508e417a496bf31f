// Fuzz target: calibration samples documents (`fit --samples FILE`, a `.partial` file after a
// failed calibration). Input: samples JSON text. Property: parse_json_text refuses with
// InputError or gives a document; check_samples and profile_from_samples either accept it or
// refuse with std::invalid_argument naming the file (what `fit` reports as exit 2); an accepted
// profile writes to JSON, and when that JSON reads back without diagnostics (`fit` refuses the
// rest as bad input naming the ranges) it reads to the same profile.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "calibrate/profile_fit.h"
#include "simulator/hardware/hardware.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::init_once();
  nlohmann::json j;
  try {
    j = parse_json_text(fuzz::as_text(data, size), "fuzz samples");
  } catch (const InputError& e) {
    fuzz::refused(e);
    return 0;
  }
  GpuProfile g;
  try {
    calibrate::check_samples(j, "fuzz.samples.json");
    // A fixed memory size: samples_memory_bytes reads this machine's RAM, not the input.
    g = calibrate::profile_from_samples({{&j, "fuzz.samples.json", 8e9}}, GpuProfile{}).profile;
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).find("fuzz.samples.json") == std::string_view::npos &&
        std::string_view(e.what()).find("no calibration samples") == std::string_view::npos)
      fuzz::fail(std::string("a refusal that does not name the file: ") + e.what());
    return 0;
  }
  const nlohmann::json written = to_json(g);
  GpuProfile back;
  Diagnostics d;
  read_gpu_profile(written, "", d, back);
  if (d.empty()) {
    GpuProfile again;
    read_gpu_profile(to_json(back), "", d, again);
    if (!d.empty() || !(again == back)) fuzz::fail("a fitted profile changes through to_json");
  }
  return 0;
}
