#include "fulgur/callbacks/batch_size_finder.h"

#include "fulgur/trainer.h"

namespace fulgur {

BatchSizeFinder::BatchSizeFinder(BatchSizeFinderOptions options) : options_(std::move(options)) {
  check_batch_size_finder_options(options_);
}

void BatchSizeFinder::on_fit_start(Trainer& trainer, Module& module) {
  optimal_batch_size_ = scale_batch_size(trainer, module,
                                         {.datamodule = trainer.datamodule(),
                                          .train_dataloader = trainer.given_train_dataloader(),
                                          .val_dataloader = trainer.given_val_dataloader()},
                                         options_, TrainerFn::Fitting);
  // A loader made before (for estimated_stepping_batches) has the old size: made again.
  trainer.reset_train_dataloader();
}

}  // namespace fulgur
