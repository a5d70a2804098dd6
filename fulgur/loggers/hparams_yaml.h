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
// Reads a flat hparams.yaml back (as PyYAML resolves its scalars: quoted ones are strings,
// plain ones bools, ints, floats with a dot or exponent, .inf/.nan, else strings); ConfigError
// naming the file for a missing or unreadable file, a nested value or a null.
HParams read_hparams_yaml(const std::filesystem::path& path);

}  // namespace fulgur
