#include "fulgur/loops/prediction_loop.h"

#include <c10/core/InferenceMode.h>

#include "fulgur/data/data_loader.h"
#include "fulgur/loops/hooks.h"
#include "fulgur/strategies/strategy.h"

namespace fulgur {

std::vector<torch::Tensor> PredictionLoop::run(int64_t max_batches, bool keep_predictions) {
  Trainer& t = trainer_;
  Module& module = *t.module();
  Strategy& strategy = t.strategy();
  c10::InferenceMode inference;
  batch_progress.reset_current();
  predictions_.clear();
  if (keep_predictions) predictions_.reserve(static_cast<size_t>(max_batches));

  module.capture_modes();
  hooks::module(t, "on_predict_model_eval", [](Module& m) { m.on_predict_model_eval(); });
  FULGUR_CALL_HOOK(t, on_predict_start);
  FULGUR_CALL_HOOK(t, on_predict_epoch_start);
  loader_->load_state({loader_->state().epoch, 0});
  int64_t batch_idx = 0;
  const char* fetch = "[_PredictionLoop].predict_next";
  auto first = [&] {
    ProfiledAction timed(t.profiler(), fetch);
    return max_batches > 0 ? loader_->begin() : loader_->end();
  };
  for (auto it = first(); it != loader_->end();) {
    batch_progress.is_last_batch = batch_idx + 1 == max_batches;
    batch_progress.increment_ready();
    Batch batch = hooks::batch_to_device(t, std::move(*it));
    batch_progress.increment_started();
    FULGUR_CALL_HOOK(t, on_predict_batch_start, batch, batch_idx);
    auto output = hooks::strategy(
        t, "predict_step", [&](Module& m) { return strategy.predict_step(m, batch, batch_idx); });
    batch_progress.increment_processed();
    FULGUR_CALL_HOOK(t, on_predict_batch_end, output, batch, batch_idx);
    // On the host, as Lightning's: a large predict set does not pile up in device memory.
    if (keep_predictions) predictions_.push_back(output.defined() ? output.to(torch::kCPU) : output);
    batch_progress.increment_completed();
    if (++batch_idx >= max_batches) break;
    ProfiledAction timed(t.profiler(), fetch);
    ++it;
  }
  FULGUR_CALL_HOOK(t, on_predict_epoch_end);
  FULGUR_CALL_HOOK(t, on_predict_end);
  module.restore_modes();  // Lightning has no on_predict_model_train hook
  return std::move(predictions_);
}

std::vector<int64_t> PredictionLoop::current_batch_indices() const {
  if (!loader_ || batch_progress.current.ready == 0) return {};
  return loader_->batch_indices(batch_progress.current.ready - 1);
}

}  // namespace fulgur
