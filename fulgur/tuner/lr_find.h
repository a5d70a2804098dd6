#pragma once
// Lightning's learning-rate range test: trains up to `num_training` optimizer steps from min_lr
// to max_lr within the user's loop limits (max_epochs, limit_train_batches; validation, of at
// most num_training batches, where the user's settings put it), records each step's rate and
// smoothed loss, stops early when the loss diverges, then puts the weights back and
// (update_attr) writes the suggestion into the Module's hparams, which configure_optimizers
// reads.
#include <optional>

#include "fulgur/tuner/lr_finder.h"
#include "fulgur/tuner/tuning_trial.h"

namespace fulgur {

class Module;
class Trainer;

// nullopt, with a warning, under fast_dev_run (Lightning skips the search there). Raises
// ConfigError for a distributed strategy, bad options, or update_attr without an `lr`,
// `learning_rate` (or attr_name) hyperparameter; MisconfigurationError for several optimizers.
std::optional<LRFinder> lr_find(Trainer& trainer, Module& module, const TuningData& data,
                                const LRFinderOptions& options);

}  // namespace fulgur
