#pragma once
// SaveConfigCallback (Lightning's, which LightningCLI adds to every run): at setup writes the
// run's resolved configuration to <trainer.log_dir()>/<config_filename>, once per Trainer, on
// rank 0. The file is what `--print_config` prints, so `--config` reproduces the run.
//
// An existing file is not overwritten unless `overwrite` is set: the run stops with an Error
// before anything trains (on every rank alike: rank 0 looks, and tells the others), because the
// file belongs to an earlier run. The file is written whole or not at all.
#include <string>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

struct SaveConfigCallbackOptions {
  std::string config_filename = "config.yaml";
  bool overwrite = false;
};

class SaveConfigCallback : public Callback {
 public:
  // `config` is the YAML text to save. Raises ConfigError for an empty config_filename.
  explicit SaveConfigCallback(std::string config, SaveConfigCallbackOptions options = {});
  std::string name() const override { return "SaveConfigCallback"; }

  void setup(Trainer& trainer, Module& module, const std::string& stage) override;

  const std::string& config() const { return config_; }
  const SaveConfigCallbackOptions& options() const { return options_; }

 private:
  std::string config_;
  SaveConfigCallbackOptions options_;
  bool already_saved_ = false;
};

}  // namespace fulgur
