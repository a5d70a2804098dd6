#pragma once
// FitLoop: epochs until max_epochs / max_steps / should_stop (respecting min_epochs and
// min_steps), with the sanity check first and Lightning's epoch-end hook order.
#include <memory>
#include <optional>
#include <string>

#include <ATen/core/Dict.h>

#include "fulgur/loops/evaluation_loop.h"
#include "fulgur/loops/progress.h"
#include "fulgur/loops/training_epoch_loop.h"
#include "fulgur/trainer.h"

namespace fulgur {

class DataLoader;

class FitLoop {
 public:
  FitLoop(Trainer& trainer, EvaluationLoop& val_loop);

  void set_train_dataloader(std::shared_ptr<DataLoader> loader) { loader_ = std::move(loader); }
  const std::shared_ptr<DataLoader>& train_dataloader() const { return loader_; }
  // After setup: runs the epochs (the sanity check and on_train_start/end belong to the Trainer).
  void run();
  bool done() const;
  // min_epochs and min_steps are met, so should_stop may end training.
  bool can_stop_early() const;
  // The Trainer's min_epochs; 1 when only min_steps is set (Lightning's _parse_loop_limits).
  std::optional<int64_t> min_epochs() const;
  int64_t current_epoch() const { return epoch_progress.current.completed; }
  // After a checkpoint restored the counters: the next epoch starts at `point` (loader position,
  // batch counters), and the generators get `rng_states` (when given) just before it.
  void resume_at(const ResumePoint& point, std::optional<c10::impl::GenericDict> rng_states,
                 std::string source);
  // A checkpoint was restored and training has not gone past it yet (no sanity check then).
  bool restarting() const { return resume_.has_value(); }

  Progress epoch_progress;
  TrainingEpochLoop epoch_loop;
  // Lightning's _skip_backward: while set, each training batch runs training_step alone, with no
  // backward, no optimizer step and no LR-scheduler step (StochasticWeightAveraging's
  // batch-norm epoch: the forward passes recompute the running statistics).
  bool skip_backward = false;

 private:
  void run_epoch();
  Trainer& trainer_;
  std::shared_ptr<DataLoader> loader_;
  struct PendingResume {
    ResumePoint point;
    std::optional<c10::impl::GenericDict> rng_states;
    std::string source;
  };
  std::optional<PendingResume> resume_;
  // Positions the loader and the counters at resume_ (once); true when that continues an epoch.
  bool apply_resume();
};

}  // namespace fulgur
