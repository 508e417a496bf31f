#include "reports/build_info.h"

#include "shardsim_build_info.h"

namespace shardsim {

std::string tool_version() {
  return SHARDSIM_VERSION;
}

nlohmann::json build_json() {
  return {{"git_revision", SHARDSIM_GIT_REVISION},
          {"build_type", SHARDSIM_BUILD_TYPE},
          {"compiler", SHARDSIM_COMPILER}};
}

}  // namespace shardsim
