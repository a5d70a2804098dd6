#pragma once
// The Python that the interop tests run: Debian's /usr/bin/python3 with python3-torch, or the
// interpreter FULGUR_TEST_PYTHON names (bench/gpu/run's ctest mode sets the device's, with the
// PyTorch fulgur was built against there).
#include <cstdlib>
#include <string>

namespace fulgur::testing {

inline std::string python() {
  const char* chosen = std::getenv("FULGUR_TEST_PYTHON");
  return chosen != nullptr && *chosen != '\0' ? chosen : "/usr/bin/python3";
}

}  // namespace fulgur::testing
