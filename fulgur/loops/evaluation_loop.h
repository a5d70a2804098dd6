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

  void set_dataloader(std::shared_ptr<DataLoader> loader) { loader_ = std::move(loader); }
  const std::shared_ptr<DataLoader>& dataloader() const { return loader_; }
  // Runs at most `max_batches` batches; returns the epoch-level metrics logged during the run.
  // `log`: send them to the loggers (false for the sanity check).
  Metrics run(int64_t max_batches, bool log);
  BatchProgress batch_progress;

 private:
  Trainer& trainer_;
  bool testing_;
  std::shared_ptr<DataLoader> loader_;
};

}  // namespace fulgur
