#pragma once
// Runs a LightningCLI subcommand ("fit", "validate", "test", "predict") on a Trainer, as
// LightningCLI does after building the model and the data: the same call a program would write
// by hand, chosen by name.
#include <optional>
#include <string>
#include <vector>

#include "fulgur/trainer.h"

namespace fulgur {

struct SubcommandResult {
  Metrics metrics;                         // validate / test: the logged epoch metrics
  std::vector<torch::Tensor> predictions;  // predict: one tensor per batch
};

// Raises ConfigError for a subcommand that is none of the four.
SubcommandResult run_subcommand(const std::string& subcommand, Trainer& trainer, Module& module,
                                DataModule& datamodule,
                                const std::optional<std::string>& ckpt_path = std::nullopt);

}  // namespace fulgur
