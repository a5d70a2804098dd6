#include "fulgur/tuner/tuner.h"

#include <algorithm>

#include "fulgur/callbacks/batch_size_finder.h"
#include "fulgur/callbacks/learning_rate_finder.h"
#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "fulgur/tuner/lr_find.h"

namespace fulgur {
namespace {

template <typename FinderCallback>
void refuse_when_configured(const Trainer& trainer, const char* name) {
  const auto& callbacks = trainer.callbacks();
  if (std::any_of(callbacks.begin(), callbacks.end(), [](const auto& cb) {
        return dynamic_cast<const FinderCallback*>(cb.get()) != nullptr;
      })) {
    throw ConfigError(std::string("Trainer is already configured with a ") + name +
                      " callback. Please remove it if you want to use the Tuner.");
  }
}

}  // namespace

std::optional<LRFinder> Tuner::lr_find(Module& module, DataModule& datamodule,
                                       const LRFinderOptions& options) {
  refuse_when_configured<LearningRateFinder>(trainer_, "LearningRateFinder");
  return fulgur::lr_find(trainer_, module, {.datamodule = &datamodule}, options);
}

std::optional<LRFinder> Tuner::lr_find(Module& module, std::shared_ptr<DataLoader> train_dataloader,
                                       std::shared_ptr<DataLoader> val_dataloader,
                                       const LRFinderOptions& options) {
  refuse_when_configured<LearningRateFinder>(trainer_, "LearningRateFinder");
  return fulgur::lr_find(trainer_, module,
                         {.train_dataloader = std::move(train_dataloader),
                          .val_dataloader = std::move(val_dataloader)},
                         options);
}

std::optional<int64_t> Tuner::scale_batch_size(Module& module, DataModule& datamodule,
                                               const BatchSizeFinderOptions& options,
                                               TrainerFn method) {
  refuse_when_configured<BatchSizeFinder>(trainer_, "BatchSizeFinder");
  return fulgur::scale_batch_size(trainer_, module, {.datamodule = &datamodule}, options, method);
}

std::optional<int64_t> Tuner::scale_batch_size(Module& module,
                                               const BatchSizeFinderOptions& options,
                                               TrainerFn method) {
  refuse_when_configured<BatchSizeFinder>(trainer_, "BatchSizeFinder");
  return fulgur::scale_batch_size(trainer_, module, {}, options, method);
}

}  // namespace fulgur
