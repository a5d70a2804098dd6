#include "timed_strategy.h"

#include <fmt/format.h>

#include <chrono>

namespace extending {

torch::Tensor TimedStrategy::training_step(fulgur::Module& module, fulgur::Batch& batch,
                                           int64_t batch_idx) {
  const auto start = std::chrono::steady_clock::now();
  // The base class opens the precision's forward scope around Module::training_step.
  auto loss = SingleDeviceStrategy::training_step(module, batch, batch_idx);
  counts_.training_step_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++counts_.training_steps;
  return loss;
}

void TimedStrategy::validation_step(fulgur::Module& module, fulgur::Batch& batch,
                                    int64_t batch_idx) {
  SingleDeviceStrategy::validation_step(module, batch, batch_idx);
  ++counts_.validation_steps;
}

void TimedStrategy::backward(const torch::Tensor& loss, fulgur::Module* module) {
  // Precision::pre_backward (scaling) and the Module's backward hook run in here.
  SingleDeviceStrategy::backward(loss, module);
  ++counts_.backward_passes;
}

torch::Tensor TimedStrategy::optimizer_step(torch::optim::Optimizer& optimizer,
                                            const fulgur::Closure& closure,
                                            const std::function<void()>& after_closure) {
  // `closure` is the forward and backward of this batch; the precision plugin decides when it
  // runs relative to the step.
  auto loss = SingleDeviceStrategy::optimizer_step(optimizer, closure, after_closure);
  ++counts_.optimizer_steps;
  return loss;
}

void TimedStrategy::teardown() {
  fmt::print(
      "[strategy] {}: {} training steps, {} validation steps, {} backward passes, {} optimizer "
      "steps ({:.3f} s in training_step)\n",
      name(), counts_.training_steps, counts_.validation_steps, counts_.backward_passes,
      counts_.optimizer_steps, counts_.training_step_seconds);
  // Tears down the checkpoint IO and the accelerator.
  SingleDeviceStrategy::teardown();
}

}  // namespace extending
