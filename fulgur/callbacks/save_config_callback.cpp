#include "fulgur/callbacks/save_config_callback.h"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "fulgur/errors.h"
#include "fulgur/plot/atomic_file.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"

namespace fulgur {

namespace fs = std::filesystem;

SaveConfigCallback::SaveConfigCallback(std::string config, SaveConfigCallbackOptions options)
    : config_(std::move(config)), options_(std::move(options)) {
  if (options_.config_filename.empty()) {
    throw ConfigError(
        "SaveConfigCallback needs a config_filename, e.g. {.config_filename = \"config.yaml\"}");
  }
}

void SaveConfigCallback::setup(Trainer& trainer, Module&, const std::string&) {
  // A Trainer that fits and then tests saves the configuration once.
  if (already_saved_) return;
  const fs::path log_dir = trainer.log_dir();
  const fs::path path = log_dir / options_.config_filename;
  Strategy& strategy = trainer.strategy();
  if (!options_.overwrite) {
    std::error_code ec;
    const bool exists = trainer.is_global_zero() && fs::exists(path, ec);
    if (strategy.broadcast_decision(exists)) {
      throw Error(fmt::format(
          "SaveConfigCallback expected {} to NOT exist. Aborting to avoid overwriting results of "
          "a previous run. You can delete the previous config file, set "
          "LightningCLIOptions{{.save_config_callback = false}} to disable config saving, or set "
          "LightningCLIOptions{{.save_config_kwargs = {{.overwrite = true}}}} to overwrite the "
          "config file.",
          path.string()));
    }
  }
  if (trainer.is_global_zero()) {
    std::error_code ec;
    if (!log_dir.empty()) fs::create_directories(log_dir, ec);
    plot::write_file_atomically(path.string(), config_);
  }
  already_saved_ = true;
}

}  // namespace fulgur
