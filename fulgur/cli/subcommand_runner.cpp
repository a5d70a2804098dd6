#include "fulgur/cli/subcommand_runner.h"

#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur {

SubcommandResult run_subcommand(const std::string& subcommand, Trainer& trainer, Module& module,
                                DataModule& datamodule,
                                const std::optional<std::string>& ckpt_path) {
  SubcommandResult result;
  if (subcommand == "fit") {
    trainer.fit(module, datamodule, ckpt_path);
  } else if (subcommand == "validate") {
    result.metrics = trainer.validate(module, datamodule, ckpt_path);
  } else if (subcommand == "test") {
    result.metrics = trainer.test(module, datamodule, ckpt_path);
  } else if (subcommand == "predict") {
    result.predictions = trainer.predict(module, datamodule, ckpt_path);
  } else {
    throw ConfigError(fmt::format(
        "unknown subcommand '{}'; choose one of fit, validate, test, predict", subcommand));
  }
  return result;
}

}  // namespace fulgur
