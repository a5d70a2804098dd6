#include "fulgur/loops/evaluation_loop.h"

#include <c10/core/InferenceMode.h>

#include "fulgur/connectors/logger_connector.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/loops/hooks.h"
#include "fulgur/strategies/strategy.h"

namespace fulgur {

EvaluationLoop::EvaluationLoop(Trainer& trainer, bool testing)
    : trainer_(trainer), testing_(testing) {}

Metrics EvaluationLoop::run(int64_t max_batches, bool log) {
  Trainer& t = trainer_;
  Module& module = *t.module();
  Strategy& strategy = t.strategy();
  auto& results = t.logger_connector();
  results.on_eval_start();
  batch_progress.reset_current();
  has_run_ = false;

  // Evaluation never builds graphs; inference mode also skips version counting.
  std::optional<c10::InferenceMode> inference;
  std::optional<torch::NoGradGuard> no_grad;
  if (t.options().inference_mode) {
    inference.emplace();
  } else {
    no_grad.emplace();
  }

  module.capture_modes();
  if (testing_) {
    hooks::module(t, "on_test_model_eval", [](Module& m) { m.on_test_model_eval(); });
    FULGUR_CALL_HOOK(t, on_test_start);
    FULGUR_CALL_HOOK(t, on_test_epoch_start);
  } else {
    hooks::module(t, "on_validation_model_eval", [](Module& m) { m.on_validation_model_eval(); });
    FULGUR_CALL_HOOK(t, on_validation_start);
    FULGUR_CALL_HOOK(t, on_validation_epoch_start);
  }

  // Every evaluation run reads its loader from the start.
  loader_->load_state({loader_->state().epoch, 0});
  int64_t batch_idx = 0;
  const char* fetch = testing_ ? "[_EvaluationLoop].test_next" : "[_EvaluationLoop].val_next";
  auto first = [&] {
    ProfiledAction timed(t.profiler(), fetch);
    return max_batches > 0 ? loader_->begin() : loader_->end();
  };
  for (auto it = first(); it != loader_->end();) {
    batch_progress.is_last_batch = batch_idx + 1 == max_batches;
    batch_progress.increment_ready();
    Batch batch = hooks::batch_to_device(t, std::move(*it));
    results.set_batch_size(batch_size_of(batch));
    batch_progress.increment_started();
    if (testing_) {
      FULGUR_CALL_HOOK(t, on_test_batch_start, batch, batch_idx);
      hooks::strategy(t, "test_step", [&](Module& m) { strategy.test_step(m, batch, batch_idx); });
      batch_progress.increment_processed();
      FULGUR_CALL_HOOK(t, on_test_batch_end, batch, batch_idx);
    } else {
      FULGUR_CALL_HOOK(t, on_validation_batch_start, batch, batch_idx);
      hooks::strategy(t, "validation_step",
                    [&](Module& m) { strategy.validation_step(m, batch, batch_idx); });
      batch_progress.increment_processed();
      FULGUR_CALL_HOOK(t, on_validation_batch_end, batch, batch_idx);
    }
    // Outside the sanity check, the batch's step values reach the loggers at the count of
    // batches this loader has run.
    results.on_eval_batch_end(log ? std::optional<int64_t>(seen_batches_++) : std::nullopt);
    has_run_ = has_run_ || log;
    batch_progress.increment_completed();
    // Stop before fetching a batch that will not run.
    if (++batch_idx >= max_batches) break;
    ProfiledAction timed(t.profiler(), fetch);
    ++it;
  }

  Metrics metrics;
  if (testing_) {
    FULGUR_CALL_HOOK(t, on_test_epoch_end);
    metrics = results.on_eval_end(log, t.batches_that_stepped());
    FULGUR_CALL_HOOK(t, on_test_end);
    hooks::module(t, "on_test_model_train", [](Module& m) { m.on_test_model_train(); });
  } else {
    FULGUR_CALL_HOOK(t, on_validation_epoch_end);
    metrics = results.on_eval_end(log, t.batches_that_stepped());
    FULGUR_CALL_HOOK(t, on_validation_end);
    hooks::module(t, "on_validation_model_train", [](Module& m) { m.on_validation_model_train(); });
  }
  return metrics;
}

}  // namespace fulgur
