#include "fulgur/warnings.h"

#include <cstdlib>
#include <iostream>
#include <string>

namespace fulgur {
namespace {

// Lightning's rank_zero_only.rank: the first of the launchers' rank variables that is set.
bool rank_zero() {
  for (const char* name : {"RANK", "LOCAL_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"}) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') {
      return std::string(value) == "0";
    }
  }
  return true;
}

}  // namespace

void warn(const std::string& message) {
  if (rank_zero()) std::cerr << "fulgur: warning: " << message << std::endl;
}

}  // namespace fulgur
