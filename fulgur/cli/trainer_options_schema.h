#pragma once
// Binds every scalar Trainer option to the key `<prefix>.<name>` of an OptionSchema, with
// Lightning's names, types and defaults (the defaults shown are `options`' values now, so a
// program can change them before binding). Callbacks, plugins and logger instances cannot be
// written as text and are left to code.
#include <string>

#include "fulgur/cli/option_schema.h"
#include "fulgur/trainer_options.h"

namespace fulgur {

// `options` must outlive `schema`.
void add_trainer_options(OptionSchema& schema, TrainerOptions& options,
                         const std::string& prefix = "trainer");

}  // namespace fulgur
