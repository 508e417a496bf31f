// Fuzz target: the hardware profile readers (a GPU profile file given as `cluster.gpu` or to
// `collective --gpu`, a network given as `cluster.network`). Input: profile JSON text. Property:
// parse_json_text refuses with InputError or gives a document; the strict readers report problems
// as diagnostics (never a throw); a profile read without diagnostics writes back (to_json) to a
// document that reads to the same profile, and evaluates in a small scenario with finite numbers.
#include <cstddef>
#include <cstdint>

#include "simulator/hardware/hardware.h"
#include "simulator/scenario/load.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::init_once();
  nlohmann::json j;
  try {
    j = parse_json_text(fuzz::as_text(data, size), "fuzz profile");
  } catch (const InputError& e) {
    fuzz::refused(e);
    return 0;
  }
  {
    GpuProfile g;
    Diagnostics d;
    read_gpu_profile(j, "", d, g);
    if (d.empty()) {
      GpuProfile back;
      read_gpu_profile(to_json(g), "", d, back);
      if (!d.empty()) fuzz::fail("a GPU profile's to_json fails its reader:\n" + d.format());
      if (!(back == g)) fuzz::fail("a GPU profile changes through to_json");
      try {
        const nlohmann::json scenario = {
            {"model", {{"preset", "llama3-8b"}}},
            {"training", {{"seq_len", 2048}, {"global_batch", 16}, {"micro_batch", 1}}},
            {"cluster", {{"gpu", j}, {"nodes", 1}, {"gpus_per_node", 8}}},
            {"parallel", {{"tp", 2}, {"pp", 1}, {"zero", 1}}}};
        const Scenario s = scenario_from_json(scenario, "");
        fuzz::evaluate_loaded(s);
      } catch (const InputError& e) {
        fuzz::refused(e);
      }
    }
  }
  {
    NetworkConfig n;
    Diagnostics d;
    read_network_config(j, "", d, n);
    if (d.empty()) {
      NetworkConfig back;
      read_network_config(to_json(n), "", d, back);
      if (!d.empty()) fuzz::fail("a network's to_json fails its reader:\n" + d.format());
      if (!(back == n)) fuzz::fail("a network changes through to_json");
    }
  }
  return 0;
}
