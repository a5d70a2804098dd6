#pragma once
// The entries of a directory, for the integration tests' checks, listed the way fulgur lists
// directories (POSIX, fulgur/io/directory_listing.h): against a LibTorch whose wheels export
// their own copy of std::filesystem's iterator, the tests then work as fulgur does.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "fulgur/io/directory_listing.h"

namespace fulgur::testing {

// The paths in `dir` whose names end with `suffix` ("" for every entry), sorted by name.
inline std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir,
                                                   const std::string& suffix = "") {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : list_directory(dir.string())) {
    if (entry.name.ends_with(suffix)) out.push_back(dir / entry.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fulgur::testing
