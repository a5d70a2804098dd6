#include "fulgur/version.h"

namespace fulgur {

// FULGUR_VERSION comes from the build (target_compile_definitions in CMakeLists.txt).
std::string version() { return FULGUR_VERSION; }

}  // namespace fulgur
