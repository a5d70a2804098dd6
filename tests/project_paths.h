#pragma once
// Where the build put its programs and where the sources are. Only project_paths.cpp is
// compiled with these absolute paths, so the test objects are the same in every checkout and
// a clone in another folder (CI) finds them in ccache.
#include <string>

namespace fulgur::testing {

const std::string& bin_dir();     // the build's bin/: the examples, the workers, the tool
const std::string& source_dir();  // the repository's root

}  // namespace fulgur::testing
