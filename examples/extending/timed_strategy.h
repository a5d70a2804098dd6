#pragma once
// TimedStrategy — single-device training that counts and times what passes through it. It
// shows where a strategy sits: every step, backward and optimizer step of the loops goes
// through these overrides, and the base class then hands the work to the Precision plugin
// (autocast scope, loss scaling, unscale-and-step) and to the Module.
//
// Registered as "timed_single_device" in fulgur::strategy_registry() (register_extensions.cpp).
// Subclassing SingleDeviceStrategy keeps the AcceleratorConnector's rule that it runs on
// exactly one device. At teardown (the end of every fit/validate/test/predict) it prints what
// it counted.
#include <cstdint>
#include <string>

#include "fulgur/strategies/single_device_strategy.h"

namespace extending {

class TimedStrategy : public fulgur::SingleDeviceStrategy {
 public:
  static constexpr const char* kName = "timed_single_device";

  struct Counts {
    int64_t training_steps = 0;
    int64_t validation_steps = 0;
    int64_t backward_passes = 0;
    int64_t optimizer_steps = 0;
    double training_step_seconds = 0;  // forward passes of training_step only
  };

  std::string name() const override { return kName; }

  torch::Tensor training_step(fulgur::Module& module, fulgur::Batch& batch,
                              int64_t batch_idx) override;
  void validation_step(fulgur::Module& module, fulgur::Batch& batch, int64_t batch_idx) override;
  void backward(const torch::Tensor& loss, fulgur::Module* module = nullptr) override;
  torch::Tensor optimizer_step(torch::optim::Optimizer& optimizer, const fulgur::Closure& closure,
                               const std::function<void()>& after_closure) override;
  void teardown() override;

  const Counts& counts() const { return counts_; }

 private:
  Counts counts_;
};

}  // namespace extending
