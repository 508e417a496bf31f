// Test helper: turns a cpu samples document into a hardware profile with the STAND-IN fit
// calibrate/cpu_profile_for_validation.h (until `shardsim calibrate` writes profiles).
// Usage: validation_profile_tool SAMPLES.json PROFILE.json   (exit 0, or 2 with a message)
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "calibrate/cpu_profile_for_validation.h"
#include "simulator/scenario/load.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: validation_profile_tool SAMPLES.json PROFILE.json\n";
    return 2;
  }
  try {
    // Memory one rank may use: physical memory / ranks on the node.
    const auto samples = shardsim::read_json_file(argv[1]);
    const double ranks = samples.at("context").at("mpi").value("ranks_per_node", 1);
    const double memory =
        double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE)) / std::max(1.0, ranks);
    const auto profile = shardsim::calibrate::cpu_profile_for_validation(samples, memory, argv[1]);
    std::ofstream(argv[2]) << shardsim::to_json(profile).dump(2) << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
