#pragma once
// EvaluationLoop: one pass over validation or test data (also the sanity check): the
// stage's hooks in Lightning's order, steps under inference mode, epoch-level results.
#include <memory>

#include "fulgur/loops/progress.h"
#include "fulgur/trainer.h"

namespace fulgur {

class DataLoader;

class EvaluationLoop {
 public:
  // `testing`: test hooks and test_step; otherwise validation.
  EvaluationLoop(Trainer& trainer, bool testing);

  void set_dataloader(std::shared_ptr<DataLoader> loader) {
    loader_ = std::move(loader);
    seen_batches_ = 0;
  }
  const std::shared_ptr<DataLoader>& dataloader() const { return loader_; }
  // Runs at most `max_batches` batches; returns the epoch-level metrics logged during the run.
  // `log`: send them to the loggers (false for the sanity check).
  Metrics run(int64_t max_batches, bool log);
  BatchProgress batch_progress;
  // The last run evaluated a batch, not as the sanity check (Lightning's _has_run).
  bool has_run() const { return has_run_; }

 private:
  Trainer& trainer_;
  bool testing_;
  std::shared_ptr<DataLoader> loader_;
  bool has_run_ = false;
  // Batches run since the loader was set: the step their logged step values are written at.
  int64_t seen_batches_ = 0;
};

}  // namespace fulgur
