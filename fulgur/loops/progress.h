#pragma once
// Lightning's progress counters. `total` counts over the whole run (and is what checkpoints
// restore); `current` restarts with each epoch (batches) or each run (epochs).
#include <cstdint>

namespace fulgur {

struct ProgressCounter {
  int64_t ready = 0;
  int64_t started = 0;
  int64_t processed = 0;
  int64_t completed = 0;
  void reset() { *this = ProgressCounter{}; }
};

struct Progress {
  ProgressCounter total;
  ProgressCounter current;
  void increment_ready() { ++total.ready, ++current.ready; }
  void increment_started() { ++total.started, ++current.started; }
  void increment_processed() { ++total.processed, ++current.processed; }
  void increment_completed() { ++total.completed, ++current.completed; }
  void reset_current() { current.reset(); }
};

// Batches of one epoch, plus whether the batch being processed is the epoch's last.
struct BatchProgress : Progress {
  bool is_last_batch = false;
};

// An optimizer's steps and zero_grad calls.
struct OptimizerProgress {
  Progress step;       // ready / completed
  Progress zero_grad;  // ready / started / completed
};

// Where a fit resumed from a checkpoint written now would continue: the epoch, the batches of it
// already trained on, and the logging step after them. A batch counts once its optimizer step
// is done, so a checkpoint written from its end hooks or from the validation after it resumes
// at the next batch; an epoch whose batches are all done resumes at the next epoch.
struct ResumePoint {
  int64_t epoch = 0;
  int64_t batch = 0;
  int64_t batches_that_stepped = 0;
};

}  // namespace fulgur
