#include "fulgur/loops/fit_loop.h"

#include "fulgur/connectors/logger_connector.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/errors.h"
#include "fulgur/loops/hooks.h"
#include "fulgur/rng_states.h"

#include <fmt/format.h>

#include <iostream>

namespace fulgur {

FitLoop::FitLoop(Trainer& trainer, EvaluationLoop& val_loop)
    : epoch_loop(trainer, val_loop), trainer_(trainer) {}

std::optional<int64_t> FitLoop::min_epochs() const {
  const auto& o = trainer_.options();
  // As Lightning, min_steps alone asks for one epoch too.
  if (!o.min_epochs && o.min_steps) return 1;
  return o.min_epochs;
}

bool FitLoop::can_stop_early() const {
  const auto min = min_epochs();
  const auto& min_steps = trainer_.options().min_steps;
  const bool epochs_met = !min || epoch_progress.current.processed >= *min;
  const bool steps_met = !min_steps || trainer_.global_step() >= *min_steps;
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
  // A should_stop set before min_epochs/min_steps are met stays set and ends the fit once they
  // are, as in Lightning.
  bool told = false;
  while (!done()) {
    run_epoch();
    if (trainer_.should_stop() && !can_stop_early() && !told && trainer_.is_global_zero()) {
      told = true;
      const auto& min_steps = trainer_.options().min_steps;
      std::cout << fmt::format("Trainer was signaled to stop but the required `min_epochs={}` or "
                               "`min_steps={}` has not been met. Training will continue...\n",
                               min_epochs() ? std::to_string(*min_epochs()) : "None",
                               min_steps ? std::to_string(*min_steps) : "None");
    }
  }
}

void FitLoop::resume_at(const ResumePoint& point,
                        std::optional<c10::impl::GenericDict> rng_states, std::string source) {
  resume_ = PendingResume{point, std::move(rng_states), std::move(source)};
}

bool FitLoop::apply_resume() {
  if (!resume_) return false;
  const auto resume = std::move(*resume_);
  resume_.reset();
  const int64_t batches = trainer_.num_training_batches();
  if (resume.point.batch > batches) {
    throw CheckpointError(fmt::format(
        "{} was saved after batch {} of epoch {}, but an epoch now has {} training batches; "
        "resume with the data (batch size, limits) the checkpoint was written with",
        resume.source, resume.point.batch, resume.point.epoch, batches));
  }
  if (resume.point.batch > 0) {
    loader_->load_state({.epoch = resume.point.epoch, .position = resume.point.batch});
    epoch_loop.resume_point.batch = resume.point.batch;
    epoch_loop.continue_epoch_on_next_run();
  }
  if (resume.rng_states) restore_rng_states(*resume.rng_states, resume.source);
  return resume.point.batch > 0;
}

void FitLoop::run_epoch() {
  Trainer& t = trainer_;
  auto& results = t.logger_connector();
  epoch_progress.increment_ready();
  t.reload_dataloaders_if_due();
  loader_->set_epoch(t.current_epoch());
  epoch_loop.resume_point = {t.current_epoch(), 0, epoch_loop.batches_that_stepped};
  const bool resumed_mid_epoch = apply_resume();
  FULGUR_CALL_HOOK(t, on_train_epoch_start);
  epoch_progress.increment_started();

  {
    ProfiledAction timed(t.profiler(), "run_training_epoch");
    epoch_loop.run(*loader_);
  }
  if (epoch_loop.batch_progress.current.processed >= t.num_training_batches()) {
    epoch_loop.resume_point = {t.current_epoch() + 1, 0, epoch_loop.batches_that_stepped};
  }

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
  // As Lightning: only an epoch that ran all its batches steps the schedulers that monitor a
  // metric (one cut short by max_steps or a stop did not see the epoch the metric describes),
  // and not an epoch a checkpoint resumed into: the metrics of its first part are not saved.
  if (epoch_loop.num_ready_batches_reached() && !resumed_mid_epoch) {
    epoch_loop.update_lr_schedulers("epoch", /*plateau=*/true);
  }
  // Epoch values are logged at the step of the epoch's last batch.
  results.on_train_epoch_end(epoch_loop.batches_that_stepped - 1);
  epoch_progress.increment_completed();
}

}  // namespace fulgur
