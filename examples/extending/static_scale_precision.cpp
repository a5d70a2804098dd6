#include "static_scale_precision.h"

#include <fmt/format.h>

#include <cmath>

#include "fulgur/errors.h"

namespace extending {

StaticScalePrecision::StaticScalePrecision(double scale) : scale_(scale) {
  if (!(scale > 0) || !std::isfinite(scale)) {
    throw fulgur::ConfigError(
        fmt::format("StaticScalePrecision needs a positive, finite scale, got {}", scale));
  }
}

torch::Tensor StaticScalePrecision::pre_backward(const torch::Tensor& loss) {
  ++scaled_losses_;
  unscaled_ = false;
  return loss * scale_;
}

torch::Tensor StaticScalePrecision::optimizer_step(torch::optim::Optimizer& optimizer,
                                                   const fulgur::Closure& closure,
                                                   const std::function<void()>& after_closure) {
  // As MixedPrecision does with its GradScaler: the closure (forward + scaled backward) runs
  // once, outside the optimizer, so the gradients can be unscaled before anyone reads them.
  // (The base class instead lets the optimizer run the closure, which LBFGS needs.)
  auto loss = closure ? closure() : torch::Tensor();
  unscale_gradients(optimizer);
  if (after_closure) after_closure();  // on_before_optimizer_step hooks, gradient clipping
  optimizer.step();
  ++optimizer_steps_;
  return loss;
}

void StaticScalePrecision::unscale_gradients(torch::optim::Optimizer& optimizer) {
  if (unscaled_) return;
  torch::NoGradGuard no_grad;
  for (auto& group : optimizer.param_groups()) {
    for (auto& param : group.params()) {
      if (param.grad().defined()) param.mutable_grad().div_(scale_);
    }
  }
  unscaled_ = true;
  ++unscales_;
}

c10::IValue StaticScalePrecision::state_dict() const {
  // A dict of mixed value types, as fulgur::make_checkpoint_dict() builds them.
  auto state = fulgur::make_checkpoint_dict();
  state.insert("scale", scale_);
  state.insert("optimizer_steps", optimizer_steps_);
  return state;
}

void StaticScalePrecision::load_state_dict(const c10::IValue& state) {
  if (!state.isGenericDict()) {
    throw fulgur::CheckpointError("StaticScalePrecision: the checkpoint's state is not a dict");
  }
  const auto dict = state.toGenericDict();
  if (!dict.contains("scale") || !dict.contains("optimizer_steps")) {
    throw fulgur::CheckpointError(
        "StaticScalePrecision: the checkpoint's state lacks \"scale\" or \"optimizer_steps\"");
  }
  scale_ = dict.at("scale").toDouble();
  optimizer_steps_ = dict.at("optimizer_steps").toInt();
}

}  // namespace extending
