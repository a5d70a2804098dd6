#include "fulgur/launchers/error_file.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace fulgur::error_file {

void record(const std::string& message) noexcept {
  const char* path = std::getenv(kVariable);
  if (path == nullptr || *path == '\0') return;
  try {
    std::ofstream out(path, std::ios::trunc);
    out << message;
  } catch (...) {
    // Reporting is best effort: the exit status still tells the launcher that this rank failed.
  }
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace fulgur::error_file
