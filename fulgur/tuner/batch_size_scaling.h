#pragma once
// Lightning's batch-size scaling: short fits (steps_per_trial training steps; validation only
// where the user's settings put it within them, as Lightning) at growing batch sizes until one
// runs out of memory, then the largest that fitted is written into the hyperparameter the data
// hooks read (`batch_arg_name`, in the Module's hparams or the DataModule's). Each trial asks
// the hooks for fresh loaders. "power" doubles until a size fails; "binsearch" then bisects
// between the last success and the first failure, and gives back `margin` of what it found
// (Lightning's 5%). Doubling stops at the first size that covers the training set (Lightning:
// 20 samples → 32) and at `max_val`; unlike Lightning, which stops before trying max_val and
// returns it untried, max_val is tried, so the result is always a size that ran. The weights
// are put back after.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/tuner/tuning_trial.h"

namespace fulgur {

class Module;
class Trainer;
enum class TrainerFn;

struct BatchSizeFinderOptions {
  std::string mode = "power";  // or "binsearch"
  int64_t steps_per_trial = 3;
  int64_t init_val = 2;
  int64_t max_trials = 25;
  std::string batch_arg_name = "batch_size";
  double margin = 0.05;  // binsearch only: the result is reduced by this fraction
  int64_t max_val = 8192;
};

// Raises ConfigError for an unknown mode or a count below 1.
void check_batch_size_finder_options(const BatchSizeFinderOptions& options);

// The batch size found (also written to the hyperparameter); nullopt, with a warning, under
// fast_dev_run. Raises ConfigError for bad options or a distributed strategy,
// MisconfigurationError for loaders passed to fit directly or a missing hyperparameter, and
// Error when even the smallest size tried runs out of memory. Errors other than running out
// of memory end the search and propagate. `stage` is the run sized (Lightning's `method`): fit
// trials train steps_per_trial steps; validate, test and predict trials evaluate
// steps_per_trial batches of that stage's loader.
std::optional<int64_t> scale_batch_size(Trainer& trainer, Module& module, const TuningData& data,
                                        const BatchSizeFinderOptions& options, TrainerFn stage);

}  // namespace fulgur
