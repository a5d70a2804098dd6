#pragma once
// hparams.yaml as Lightning writes it with PyYAML: a flat map with sorted keys whose values
// read back with their types (floats stay floats, strings that look like other types are
// quoted), "{}" when there are none.
#include <filesystem>
#include <string>
#include <string_view>

#include "fulgur/hparams.h"

namespace fulgur {

// Replaces `path` whole (see file_writes.h); `owner` names the logger in error messages.
void write_hparams_yaml(const std::filesystem::path& path, const HParams& params,
                        std::string_view owner);

}  // namespace fulgur
