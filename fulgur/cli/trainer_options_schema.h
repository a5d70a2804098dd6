#pragma once
// Binds every scalar Trainer option to the key `<prefix>.<name>` of an OptionSchema, with
// Lightning's names, types and defaults (the defaults shown are `options`' values now, so a
// program can change them before binding). Loggers and callbacks chosen by class name are
// ComponentLists the caller owns and builds (LightningCLI does); without them `logger` is a
// plain bool and callbacks are left to code. Plugins are left to code.
#include <string>

#include "fulgur/cli/component_list.h"
#include "fulgur/cli/option_schema.h"
#include "fulgur/trainer_options.h"

namespace fulgur {

// The lists bound as `<prefix>.logger` and `<prefix>.callbacks` (under their own keys).
struct TrainerComponentLists {
  ComponentList* loggers = nullptr;
  ComponentList* callbacks = nullptr;
};

// `options` and the lists must outlive `schema`.
void add_trainer_options(OptionSchema& schema, TrainerOptions& options,
                         const std::string& prefix = "trainer", TrainerComponentLists lists = {});

}  // namespace fulgur
