#include "fulgur/loops/automatic_optimization.h"

#include "fulgur/errors.h"
#include "fulgur/loops/fit_loop.h"
#include "fulgur/loops/hooks.h"
#include "fulgur/strategies/strategy.h"

namespace fulgur {

torch::Tensor AutomaticOptimization::run(Batch& batch, int64_t batch_idx, bool accumulating) {
  Trainer& t = trainer_;
  Optimizer& optimizer = *t.optimizers().front();
  const int64_t accumulate = t.accumulate_grad_batches();
  const int64_t epoch = t.current_epoch();
  torch::Tensor loss;
  bool closure_ran = false;

  Closure closure = [&]() -> torch::Tensor {
    closure_ran = true;
    loss = hooks::strategy(t, "training_step", [&](Module& m) {
      return t.strategy().training_step(m, batch, batch_idx);
    });
    if (!loss.defined()) return loss;  // Lightning: returning nothing skips this batch
    if (!loss.requires_grad()) {
      throw MisconfigurationError(
          "training_step returned a loss that does not require grad: compute it from the "
          "Module's parameters (and not under NoGradGuard), or return an undefined tensor to "
          "skip the batch");
    }
    if (batch_idx % accumulate == 0) {
      hooks::callbacks(t, "on_before_zero_grad", [&](Callback& cb) {
        cb.on_before_zero_grad(t, *t.module(), optimizer);
      });
      hooks::module(t, "on_before_zero_grad", [&](Module& m) { m.on_before_zero_grad(optimizer); });
      hooks::module(t, "optimizer_zero_grad",
                    [&](Module& m) { m.optimizer_zero_grad(epoch, batch_idx, optimizer); });
    }
    if (!t.fit_loop().skip_backward) {
      t.run_backward(accumulate > 1 ? loss / static_cast<double>(accumulate) : loss);
    }
    loss = loss.variable_data();  // detached, without a dispatched op (Python's `.data`)
    return loss;
  };

  // Lightning's _block_parallel_sync_behavior: only the stepping micro-batch communicates.
  t.strategy().set_backward_sync(!accumulating);
  if (accumulating) {
    closure();
    return loss;
  }
  hooks::module(t, "optimizer_step",
                [&](Module& m) { m.optimizer_step(epoch, batch_idx, optimizer, closure); });
  if (!closure_ran) {
    throw MisconfigurationError(
        "The closure passed to Module::optimizer_step was never called: an overriding "
        "optimizer_step must call optimizer.step(closure)");
  }
  return loss;
}

}  // namespace fulgur
