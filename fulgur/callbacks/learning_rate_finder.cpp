#include "fulgur/callbacks/learning_rate_finder.h"

#include "fulgur/optim/optimizer.h"
#include "fulgur/trainer.h"
#include "fulgur/tuner/lr_find.h"

namespace fulgur {

LearningRateFinder::LearningRateFinder(LRFinderOptions options) : options_(std::move(options)) {
  LRFinder check(options_);  // bad options fail at construction, not at fit start
  (void)check;
}

void LearningRateFinder::on_fit_start(Trainer& trainer, Module& module) {
  optimal_lr_ = lr_find(trainer, module,
                        {.datamodule = trainer.datamodule(),
                         .train_dataloader = trainer.given_train_dataloader(),
                         .val_dataloader = trainer.given_val_dataloader()},
                        options_);
  if (!optimal_lr_ || !options_.update_attr) return;
  const auto index = optimal_lr_->optimal_index();
  if (!index) return;
  // The fit configured its optimizer before this hook: it takes the suggestion directly.
  const double lr = optimal_lr_->results().lr[*index];
  for (const auto& optimizer : trainer.optimizers()) {
    for (auto& group : optimizer->param_groups()) group.options().set_lr(lr);
  }
}

}  // namespace fulgur
