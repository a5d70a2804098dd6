#pragma once
// FitLoop: epochs until max_epochs / max_steps / should_stop (respecting min_epochs and
// min_steps), with the sanity check first and Lightning's epoch-end hook order.
#include <memory>

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
  // After setup: runs the epochs (the sanity check and on_train_start/end belong to the Trainer).
  void run();
  bool done() const;
  // min_epochs and min_steps are met, so should_stop may end training.
  bool can_stop_early() const;
  int64_t current_epoch() const { return epoch_progress.current.completed; }

  Progress epoch_progress;
  TrainingEpochLoop epoch_loop;

 private:
  void run_epoch();
  Trainer& trainer_;
  std::shared_ptr<DataLoader> loader_;
};

}  // namespace fulgur
