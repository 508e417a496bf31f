// Fuzz target: calibration samples documents (`fit --samples FILE`, a `.partial` file after a
// failed calibration). Input: samples JSON text. Property: parse_json_text refuses with
// InputError or gives a document; check_samples and profile_from_samples either accept it or
// refuse with std::invalid_argument naming the file (what `fit` reports as exit 2); an accepted
// profile writes to JSON text, and when that text reads back without diagnostics it reads to the
// same profile again. (`fit` checks the same read-back before writing and refuses a profile that
// fails it as bad input naming the ranges; a NaN, which the text would hold as null, fails it.)
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
    g = calibrate::profile_from_samples({{&j, "fuzz.samples.json", 8e9}}, nullptr).profile;
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).find("fuzz.samples.json") == std::string_view::npos &&
        std::string_view(e.what()).find("no calibration samples") == std::string_view::npos)
      fuzz::fail(std::string("a refusal that does not name the file: ") + e.what());
    return 0;
  }
  // What `fit` writes, as text: the dump must not throw (a string cut inside a UTF-8 character
  // did, found by review), and the file's JSON is what a later reader sees (a NaN is null there).
  const nlohmann::json written = nlohmann::json::parse(to_json(g).dump(2));
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
