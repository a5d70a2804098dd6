#include "fulgur/loops/fit_loop.h"

#include "fulgur/connectors/logger_connector.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/loops/hooks.h"

namespace fulgur {

FitLoop::FitLoop(Trainer& trainer, EvaluationLoop& val_loop)
    : epoch_loop(trainer, val_loop), trainer_(trainer) {}

bool FitLoop::can_stop_early() const {
  const auto& o = trainer_.options();
  const bool epochs_met = !o.min_epochs || epoch_progress.current.processed >= *o.min_epochs;
  const bool steps_met = !o.min_steps || trainer_.global_step() >= *o.min_steps;
  return epochs_met && steps_met;
}

bool FitLoop::done() const {
  if (trainer_.num_training_batches() == 0) return true;
  if (epoch_loop.max_steps_reached()) return true;
  const auto max_epochs = trainer_.max_epochs();
  if (max_epochs && *max_epochs != -1 && epoch_progress.current.processed >= *max_epochs) {
    return true;
  }
  return trainer_.should_stop() && can_stop_early();
}

void FitLoop::run() {
  while (!done()) {
    run_epoch();
    // should_stop before min_epochs/min_steps is deferred, as in Lightning.
    if (trainer_.should_stop() && !can_stop_early()) trainer_.set_should_stop(false);
  }
}

void FitLoop::run_epoch() {
  Trainer& t = trainer_;
  auto& results = t.logger_connector();
  epoch_progress.increment_ready();
  t.reload_dataloaders_if_due();
  loader_->set_epoch(t.current_epoch());
  results.on_train_epoch_start();
  FULGUR_CALL_HOOK(t, on_train_epoch_start);
  epoch_progress.increment_started();

  epoch_loop.run(*loader_);

  epoch_progress.increment_processed();
  // Callbacks that monitor metrics (checkpointing, early stopping) see what the Module's
  // on_train_epoch_end logged: they run after it.
  results.update_train_epoch_metrics();
  hooks::callbacks(t, "on_train_epoch_end", [&](Callback& cb) {
    if (!cb.runs_after_module_on_train_epoch_end()) cb.on_train_epoch_end(t, *t.module());
  });
  hooks::module(t, "on_train_epoch_end", [](Module& m) { m.on_train_epoch_end(); });
  results.update_train_epoch_metrics();
  hooks::callbacks(t, "on_train_epoch_end", [&](Callback& cb) {
    if (cb.runs_after_module_on_train_epoch_end()) cb.on_train_epoch_end(t, *t.module());
  });
  if (epoch_loop.batch_progress.current.ready > 0) {
    epoch_loop.update_lr_schedulers("epoch", /*plateau=*/true);
  }
  // Epoch values are logged at the step of the epoch's last batch.
  results.on_train_epoch_end(epoch_loop.batches_that_stepped - 1);
  epoch_progress.increment_completed();
}

}  // namespace fulgur
