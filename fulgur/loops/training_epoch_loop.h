#pragma once
// TrainingEpochLoop: the batches of one training epoch — transfer, step, backward, optimizer
// step (or accumulation), schedulers, validation at `val_check_interval`, step logging.
#include <memory>

#include "fulgur/loops/evaluation_loop.h"
#include "fulgur/loops/graphed_training_step.h"
#include "fulgur/loops/progress.h"
#include "fulgur/trainer.h"

namespace fulgur {

class DataLoader;
class Optimizer;

class TrainingEpochLoop {
 public:
  TrainingEpochLoop(Trainer& trainer, EvaluationLoop& val_loop);

  void run(DataLoader& loader);
  // Steps every scheduler whose interval is `interval` and whose turn it is; schedulers that
  // monitor a metric only when `plateau` (they need this step's validation results).
  void update_lr_schedulers(const std::string& interval, bool plateau);
  bool should_accumulate() const;
  // max_steps reached.
  bool max_steps_reached() const;
  // This epoch's batches all ran (Lightning's _num_ready_batches_reached).
  bool num_ready_batches_reached() const;

  // The next run() continues the epoch after the batch_progress.current.processed batches a
  // checkpoint recorded, instead of starting it afresh.
  void continue_epoch_on_next_run() { continue_epoch_ = true; }

  BatchProgress batch_progress;
  OptimizerProgress optim_progress;
  // Batches that ended an accumulation window: the `step` loggers see.
  int64_t batches_that_stepped = 0;
  // Training batches between two validations (Lightning's val_check_batch).
  int64_t val_check_batch = 0;
  // Number of validation batches per validation run; 0 disables validation.
  int64_t num_val_batches = 0;
  // Kept current by the loops; checkpoints record it.
  ResumePoint resume_point;

 private:
  bool done() const;
  bool should_check_val() const;
  int64_t batch_idx() const { return batch_progress.current.ready - 1; }

  // The step as a graph when the accelerator offers one (CUDAAcceleratorOptions::cuda_graph),
  // made for `graphed_for_`, the first optimizer of the fit it serves.
  GraphedTrainingStep* graphed_step();

  Trainer& trainer_;
  EvaluationLoop& val_loop_;
  bool continue_epoch_ = false;
  std::unique_ptr<GraphedTrainingStep> graphed_;
  const Optimizer* graphed_for_ = nullptr;
};

}  // namespace fulgur
