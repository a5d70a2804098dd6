#pragma once
// What the tuner's searches share. Each trial is a short fit by a Trainer of its own, built
// from the user's options with everything that writes or reports switched off (loggers,
// checkpoints, the progress bar, the summary, the user's callbacks), so a search leaves no
// files, no log lines and no state in the user's Trainer. The Module's weights, the random
// streams and the given loaders' positions are put back when the search ends.
#include <exception>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <torch/types.h>

#include "fulgur/trainer_options.h"

namespace fulgur {

class DataLoader;
class DataModule;
class Module;
class Trainer;
enum class TrainerFn;

// Where a fit's data comes from: a DataModule, or loaders passed to fit (then the Module's
// hooks provide what is not given).
struct TuningData {
  DataModule* datamodule = nullptr;
  std::shared_ptr<DataLoader> train_dataloader;
  std::shared_ptr<DataLoader> val_dataloader;
};

// Raises ConfigError for a Trainer the tuner cannot search with: a distributed strategy.
// `what` names the search ("The learning rate finder").
void check_tunable(const Trainer& trainer, const std::string& what);

// `user` with the side effects off, the seed and time limit dropped, no sanity check, and
// `callbacks` as the only callbacks. The loop limits stay the user's (max_epochs,
// limit_train_batches, val_check_interval, the minimums), as Lightning's searches run the
// user's own fit loop; each search then sets the few it needs.
TrainerOptions trial_options(const TrainerOptions& user,
                             std::vector<std::shared_ptr<Callback>> callbacks);

// One trial fit on `data`; returns the training set's size. The given loaders' positions are
// restored afterwards, and a loader from the hooks is rewound, so the real fit starts its first
// epoch at the first batch.
int64_t fit_trial(const TrainerOptions& options, Module& module, const TuningData& data);

// One trial validate, test or predict (`stage`) with the loaders of `data`'s hooks; returns the
// size of the dataset it evaluated.
int64_t evaluation_trial(const TrainerOptions& options, Module& module, const TuningData& data,
                         TrainerFn stage);

// The Module's parameters and buffers (values, dtypes and devices) at construction;
// restore() puts them back into the same tensors, so optimizers that hold them stay valid.
class ModuleSnapshot {
 public:
  explicit ModuleSnapshot(Module& module);
  void restore();

 private:
  Module& module_;
  std::unordered_map<std::string, torch::Tensor> parameters_;
  std::unordered_map<std::string, torch::Tensor> buffers_;
};

// Out of memory, on any device: c10::OutOfMemoryError, std::bad_alloc, or the allocators'
// messages (Lightning's is_oom_error, plus CPU allocation failures).
bool is_oom_error(const std::exception& error);

}  // namespace fulgur
