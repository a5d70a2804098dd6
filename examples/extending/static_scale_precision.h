#pragma once
// StaticScalePrecision — full 32-bit precision with a constant loss scale: the loss is
// multiplied by `scale` before backward, and the gradients are divided by it before the
// on_before_optimizer_step hooks, gradient clipping and the optimizer see them. With a power of
// two the scaling is exact, so training matches "32-true" bit for bit; the plugin is here to
// show the three places a precision plugin acts (pre_backward, optimizer_step,
// unscale_gradients) and how its state reaches checkpoints.
//
// Given to the Trainer as an instance (`.precision = std::make_shared<StaticScalePrecision>(1024)`
// or in `.plugins`), because the scale is a constructor argument; register_extensions.cpp also
// registers a default-scaled one by name ("32-static-scale").
#include <cstdint>
#include <string>

#include "fulgur/precision/precision.h"

namespace extending {

class StaticScalePrecision : public fulgur::Precision {
 public:
  static constexpr const char* kName = "32-static-scale";

  // Raises fulgur::ConfigError unless `scale` is positive and finite.
  explicit StaticScalePrecision(double scale = 1024.0);

  std::string name() const override { return kName; }
  // The checkpoint key of state_dict(), as Lightning keys a precision plugin by class name.
  std::string state_key() const override { return "StaticScalePrecision"; }

  torch::Tensor pre_backward(const torch::Tensor& loss) override;
  torch::Tensor optimizer_step(torch::optim::Optimizer& optimizer, const fulgur::Closure& closure,
                               const std::function<void()>& after_closure) override;
  // Divides the gradients by the scale once per backward (Fabric's clip_gradients may have done
  // it already).
  void unscale_gradients(torch::optim::Optimizer& optimizer) override;

  // {"scale": double, "optimizer_steps": int}
  c10::IValue state_dict() const override;
  void load_state_dict(const c10::IValue& state) override;

  double scale() const { return scale_; }
  int64_t scaled_losses() const { return scaled_losses_; }
  int64_t unscales() const { return unscales_; }
  int64_t optimizer_steps() const { return optimizer_steps_; }

 private:
  double scale_;
  bool unscaled_ = true;  // false between a scaled backward and the next unscale
  int64_t scaled_losses_ = 0;
  int64_t unscales_ = 0;
  int64_t optimizer_steps_ = 0;
};

}  // namespace extending
