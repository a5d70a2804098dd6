#include "project_paths.h"

namespace fulgur::testing {

const std::string& bin_dir() {
  static const std::string dir = FULGUR_BIN_DIR;
  return dir;
}

const std::string& source_dir() {
  static const std::string dir = FULGUR_SOURCE_DIR;
  return dir;
}

}  // namespace fulgur::testing
