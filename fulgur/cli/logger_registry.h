#pragma once
// The loggers a LightningCLI config may choose by class name under `trainer.logger`, with their
// init args: CSVLogger (TensorBoardLogger is named as planned) and any the program adds:
//   fulgur::logger_registry().add<MyOptions>("MyLogger", "one line", bind, make);
// (see component_registry.h).
#include "fulgur/cli/component_registry.h"
#include "fulgur/loggers/logger.h"

namespace fulgur {

ComponentRegistry<Logger>& logger_registry();

}  // namespace fulgur
