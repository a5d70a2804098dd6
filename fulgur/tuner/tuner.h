#pragma once
// fulgur::Tuner — Lightning's Tuner: searches a Trainer's learning rate or batch size before
// the real fit, on the Trainer's own options (precision, devices, accumulation, limits), and
// writes what it found into the Module's (or DataModule's) hyperparameters:
//   fulgur::Tuner tuner(trainer);
//   auto finder = tuner.lr_find(module, datamodule);
//   finder->plot("lr_find.svg");
//   trainer.fit(module, datamodule);  // configure_optimizers reads hparams()["lr"]
// The searches run short fits of their own; the Trainer is left as it was, the weights too.
#include <memory>
#include <optional>

#include "fulgur/trainer.h"
#include "fulgur/tuner/batch_size_scaling.h"
#include "fulgur/tuner/lr_finder.h"

namespace fulgur {

class DataLoader;
class DataModule;
class Module;
class Trainer;

class Tuner {
 public:
  explicit Tuner(Trainer& trainer) : trainer_(trainer) {}

  // See lr_find.h. Raises ConfigError when the Trainer has a LearningRateFinder callback.
  std::optional<LRFinder> lr_find(Module& module, DataModule& datamodule,
                                  const LRFinderOptions& options = {});
  std::optional<LRFinder> lr_find(Module& module,
                                  std::shared_ptr<DataLoader> train_dataloader = nullptr,
                                  std::shared_ptr<DataLoader> val_dataloader = nullptr,
                                  const LRFinderOptions& options = {});

  // See batch_size_scaling.h: the data comes from the hooks, whose loaders read the size from
  // the hyperparameters. Raises ConfigError when the Trainer has a BatchSizeFinder callback.
  // `method` (Lightning's): the run to size, TrainerFn::Validating, Testing or Predicting for
  // the evaluation loaders (val_dataloader(), ...).
  std::optional<int64_t> scale_batch_size(Module& module, DataModule& datamodule,
                                          const BatchSizeFinderOptions& options = {},
                                          TrainerFn method = TrainerFn::Fitting);
  std::optional<int64_t> scale_batch_size(Module& module,
                                          const BatchSizeFinderOptions& options = {},
                                          TrainerFn method = TrainerFn::Fitting);

 private:
  Trainer& trainer_;
};

}  // namespace fulgur
