#include "fulgur/loops/training_epoch_loop.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/connectors/signal_connector.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/errors.h"
#include "fulgur/loops/automatic_optimization.h"
#include "fulgur/loops/fit_loop.h"
#include "fulgur/loops/hooks.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/warnings.h"

namespace fulgur {

TrainingEpochLoop::TrainingEpochLoop(Trainer& trainer, EvaluationLoop& val_loop)
    : trainer_(trainer), val_loop_(val_loop) {}

bool TrainingEpochLoop::max_steps_reached() const {
  const int64_t max_steps = trainer_.max_steps();
  return max_steps != -1 && trainer_.global_step() >= max_steps;
}

bool TrainingEpochLoop::should_accumulate() const {
  if (trainer_.fit_loop().skip_backward) return true;  // no window ever closes
  const bool window_done = (batch_idx() + 1) % trainer_.accumulate_grad_batches() == 0;
  return !window_done && !batch_progress.is_last_batch;
}

bool TrainingEpochLoop::num_ready_batches_reached() const {
  return batch_progress.current.ready >= trainer_.num_training_batches() ||
         batch_progress.is_last_batch;
}

bool TrainingEpochLoop::done() const {
  if (max_steps_reached()) return true;
  if (trainer_.should_stop() && trainer_.can_stop_early()) return true;
  return num_ready_batches_reached();
}

bool TrainingEpochLoop::should_check_val() const {
  if (num_val_batches == 0) return false;
  const auto every = trainer_.options().check_val_every_n_epoch;
  if (every && (trainer_.current_epoch() + 1) % *every != 0) return false;
  if (trainer_.should_stop() && trainer_.can_stop_early()) return true;
  // Without check_val_every_n_epoch the interval counts batches across epochs.
  const int64_t current = every ? batch_idx() : batch_progress.total.ready - 1;
  return (current + 1) % val_check_batch == 0;
}

void TrainingEpochLoop::update_lr_schedulers(const std::string& interval, bool plateau) {
  Trainer& t = trainer_;
  if (!t.module()->automatic_optimization() || t.fit_loop().skip_backward) return;
  if (interval == "step" && should_accumulate()) return;
  // The optimizer did not step (inf/NaN gradients under loss scaling): neither do the
  // schedulers that follow its steps.
  if (interval == "step" && t.strategy().optimizer_step_skipped()) return;
  for (auto& config : t.lr_scheduler_configs()) {
    if (config.scheduler->needs_metric() != plateau || config.interval != interval) continue;
    const int64_t current = (interval == "step" ? batch_idx() : t.current_epoch()) + 1;
    if (current % config.frequency != 0) continue;
    // As Lightning: only a scheduler that monitors a metric gets one (a monitor set on another
    // is ignored).
    std::optional<double> metric;
    if (plateau) {
      const auto& metrics = t.callback_metrics();
      auto found = metrics.find(config.monitor);
      if (found == metrics.end()) {
        if (!config.strict) {
          warn(fmt::format("{} conditioned on metric {} which is not available but strict is set "
                           "to false. Skipping learning rate update.",
                           config.scheduler->name(), config.monitor));
          continue;
        }
        std::vector<std::string> keys;
        for (const auto& [k, _] : metrics) keys.push_back("'" + k + "'");
        throw MisconfigurationError(fmt::format(
            "{} conditioned on metric {} which is not available. Available metrics are: [{}]. "
            "Condition can be set using `monitor` in the scheduler config",
            config.scheduler->name(), config.monitor, fmt::join(keys, ", ")));
      }
      metric = found->second;
    }
    hooks::module(t, "lr_scheduler_step",
                  [&](Module& m) { m.lr_scheduler_step(*config.scheduler, metric); });
  }
}

GraphedTrainingStep* TrainingEpochLoop::graphed_step() {
  const Optimizer* first = trainer_.optimizers().front().get();
  if (first != graphed_for_) {  // a new fit: its own optimizer, model and graph
    graphed_for_ = first;
    graphed_.reset();
    if (auto graph = trainer_.strategy().make_step_graph()) {
      graphed_ = std::make_unique<GraphedTrainingStep>(trainer_, std::move(graph));
    }
  }
  return graphed_.get();
}

void TrainingEpochLoop::run(DataLoader& loader) {
  Trainer& t = trainer_;
  Module& module = *t.module();
  Strategy& strategy = t.strategy();
  auto& results = t.logger_connector();
  AutomaticOptimization automatic(t);
  if (!continue_epoch_) batch_progress.reset_current();
  continue_epoch_ = false;
  batch_progress.is_last_batch = false;

  if (done()) return;
  const char* fetch = "[_TrainingEpochLoop].train_dataloader_next";
  for (auto it = [&] { ProfiledAction timed(t.profiler(), fetch); return loader.begin(); }();
       it != loader.end();) {
    const int64_t idx = batch_progress.current.ready;
    batch_progress.is_last_batch = idx + 1 == t.num_training_batches();
    Batch batch = hooks::batch_to_device(t, std::move(*it));
    batch_progress.increment_ready();
    results.set_batch_size(batch_size_of(batch));

    hooks::callbacks(t, "on_train_batch_start",
                     [&](Callback& cb) { cb.on_train_batch_start(t, module, batch, idx); });
    const bool go_on = hooks::module(
        t, "on_train_batch_start", [&](Module& m) { return m.on_train_batch_start(batch, idx); });
    if (!go_on) {
      // Lightning's -1: the rest of this epoch is skipped; this batch counts as its last, so
      // the schedulers step as after an epoch's last batch.
      batch_progress.is_last_batch = true;
      batch_progress.increment_processed();
      update_lr_schedulers("step", /*plateau=*/false);
      update_lr_schedulers("epoch", /*plateau=*/false);
      break;
    }
    batch_progress.increment_started();

    torch::Tensor loss;
    {
      ProfiledAction timed(t.profiler(), "run_training_batch");
      GraphedTrainingStep* graphed = t.fit_loop().skip_backward ? nullptr : graphed_step();
      if (graphed != nullptr) {
        auto eager = [&](Batch& b) { return automatic.run(b, idx, should_accumulate()); };
        loss = graphed->run(batch, eager);
      } else if (module.automatic_optimization()) {
        loss = automatic.run(batch, idx, should_accumulate());
      } else {
        loss = hooks::strategy(
            t, "training_step", [&](Module& m) { return strategy.training_step(m, batch, idx); });
        if (loss.defined()) loss = loss.detach();
      }
    }
    batch_progress.increment_processed();
    resume_point = {t.current_epoch(), batch_progress.current.processed,
                    batches_that_stepped + (should_accumulate() ? 0 : 1)};

    update_lr_schedulers("step", /*plateau=*/false);
    if (batch_progress.is_last_batch) update_lr_schedulers("epoch", /*plateau=*/false);
    FULGUR_CALL_HOOK(t, on_train_batch_end, loss, batch, idx);
    results.on_train_batch_end(batches_that_stepped,
                               module.automatic_optimization() && should_accumulate());
    batch_progress.increment_completed();

    if (should_check_val()) {
      if (!should_accumulate()) {
        hooks::module(t, "on_validation_model_zero_grad",
                      [](Module& m) { m.on_validation_model_zero_grad(); });
      }
      t.run_validation(num_val_batches);
    }
    update_lr_schedulers("step", /*plateau=*/true);
    if (!should_accumulate()) ++batches_that_stepped;
    int signal = t.signal_connector().received();
    if (t.world_size() > 1) {
      // Every rank must stop at the same batch: a signal any rank got counts for all.
      signal = t.strategy().reduce(torch::tensor({signal}), ReduceOp::Max).item<int>();
    }
    if (signal != 0) t.stop_on_signal(signal);
    // Stop before fetching a batch that will not run (the loader's position stays exact).
    if (done()) break;
    ProfiledAction timed(t.profiler(), fetch);
    ++it;
  }
}

}  // namespace fulgur
