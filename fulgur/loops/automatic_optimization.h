#pragma once
// AutomaticOptimization: one training batch when the Trainer drives the optimizer — the
// closure (training_step, zero_grad at the start of an accumulation window, backward of the
// loss divided by accumulate_grad_batches) handed to the Module's optimizer_step, or run alone
// while gradients accumulate.
#include "fulgur/data/batch.h"
#include "fulgur/trainer.h"

namespace fulgur {

class AutomaticOptimization {
 public:
  explicit AutomaticOptimization(Trainer& trainer) : trainer_(trainer) {}
  // Returns the step's loss (detached; undefined when training_step returned none).
  torch::Tensor run(Batch& batch, int64_t batch_idx, bool accumulating);

 private:
  Trainer& trainer_;
};

}  // namespace fulgur
