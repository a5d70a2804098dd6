#pragma once
// fulgur's version: the VERSION of project() in CMakeLists.txt, the one place it is written.
// Checkpoints record it as `fulgur_version`; printed configs start with it.
#include <string>

namespace fulgur {

std::string version();

}  // namespace fulgur
