#include "fulgur/callbacks/gradient_accumulation_scheduler.h"

#include <iterator>

#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/module.h"
#include "fulgur/trainer.h"

namespace fulgur {

GradientAccumulationScheduler::GradientAccumulationScheduler(std::map<int64_t, int64_t> scheduling)
    : scheduling_(std::move(scheduling)) {
  if (scheduling_.empty()) {
    throw ConfigError("GradientAccumulationScheduler needs a schedule: {epoch: batches, ...}");
  }
  for (const auto& [epoch, batches] : scheduling_) {
    if (epoch < 0) {
      throw ConfigError(fmt::format(
          "GradientAccumulationScheduler: epochs must be >= 0; got epoch {}", epoch));
    }
    if (batches < 1) {
      throw ConfigError(fmt::format(
          "GradientAccumulationScheduler: the batches to accumulate must be >= 1; epoch {} has {}",
          epoch, batches));
    }
  }
  scheduling_.emplace(0, 1);  // epochs before the first key: no accumulation
}

int64_t GradientAccumulationScheduler::accumulate_grad_batches_for(int64_t epoch) const {
  // The entry with the largest epoch not after `epoch` (epoch 0 is always there).
  auto it = scheduling_.upper_bound(epoch);
  return std::prev(it)->second;
}

void GradientAccumulationScheduler::on_train_start(Trainer& trainer, Module& module) {
  if (!module.automatic_optimization()) {
    throw MisconfigurationError(
        "GradientAccumulationScheduler does not work with manual optimization; remove the "
        "callback or switch to automatic optimization");
  }
  if (trainer.options().accumulate_grad_batches != 1) {
    throw MisconfigurationError(fmt::format(
        "accumulate_grad_batches={} is set and the GradientAccumulationScheduler callback is "
        "used; remove one of them",
        trainer.options().accumulate_grad_batches));
  }
}

void GradientAccumulationScheduler::on_train_epoch_start(Trainer& trainer, Module&) {
  trainer.set_accumulate_grad_batches(accumulate_grad_batches_for(trainer.current_epoch()));
}

}  // namespace fulgur
