#include "fulgur/precision/mixed_precision.h"

#include <fmt/format.h>

#include "fulgur/compat/autocast_scope.h"
#include "fulgur/errors.h"

namespace fulgur {
namespace {

class AutocastForward : public ForwardScope {
 public:
  AutocastForward(c10::DeviceType device, c10::ScalarType dtype) : scope_(device, dtype) {}

 private:
  compat::AutocastScope scope_;
};

}  // namespace

MixedPrecision::MixedPrecision(c10::ScalarType dtype, c10::DeviceType device,
                               std::shared_ptr<GradScaler> scaler)
    : dtype_(dtype), device_(device), scaler_(std::move(scaler)) {
  if (dtype != torch::kBFloat16 && dtype != torch::kHalf) {
    throw ConfigError(fmt::format("MixedPrecision takes bfloat16 or float16, not {}",
                                  c10::toString(dtype)));
  }
  if (dtype == torch::kHalf && !scaler_) scaler_ = std::make_shared<GradScaler>();
}

std::string MixedPrecision::name() const {
  return dtype_ == torch::kHalf ? "16-mixed" : "bf16-mixed";
}

void MixedPrecision::set_device_type(c10::DeviceType device) {
  if (!compat::AutocastScope::supports(device, dtype_)) {
    throw ConfigError(fmt::format(
        "precision=\"{}\" cannot autocast on {} with this LibTorch (its CPU autocast knows "
        "bfloat16 only); use \"bf16-mixed\"",
        name(), c10::DeviceTypeName(device, /*lower_case=*/true)));
  }
  device_ = device;
}

std::unique_ptr<ForwardScope> MixedPrecision::forward_context() {
  return std::make_unique<AutocastForward>(device_, dtype_);
}

torch::Tensor MixedPrecision::pre_backward(const torch::Tensor& loss) {
  return scaler_ ? scaler_->scale(loss) : loss;
}

torch::Tensor MixedPrecision::optimizer_step(torch::optim::Optimizer& optimizer,
                                             const Closure& closure,
                                             const std::function<void()>& after_closure) {
  skipped_ = false;
  if (!scaler_) return Precision::optimizer_step(optimizer, closure, after_closure);
  // As PyTorch's GradScaler: the closure runs once (forward and the scaled backward), outside
  // the optimizer, so that the gradients can be unscaled and checked before the step.
  auto loss = closure ? closure() : torch::Tensor();
  unscale_gradients(optimizer);  // unless Fabric's clip_gradients did already
  if (after_closure) after_closure();
  skipped_ = !scaler_->step(optimizer);
  scaler_->update();
  return loss;
}

void MixedPrecision::unscale_gradients(torch::optim::Optimizer& optimizer) {
  if (scaler_ && !scaler_->unscaled()) scaler_->unscale(optimizer);
}

c10::IValue MixedPrecision::state_dict() const {
  return scaler_ ? scaler_->state_dict() : c10::IValue();
}

void MixedPrecision::load_state_dict(const c10::IValue& state) {
  if (scaler_ && !state.isNone()) scaler_->load_state_dict(state);
}

}  // namespace fulgur
