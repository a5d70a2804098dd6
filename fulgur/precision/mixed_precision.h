#pragma once
// "bf16-mixed" and "16-mixed" (Lightning's MixedPrecision): parameters, gradients and the
// optimizer stay in float32, and each step's forward runs under autocast on the accelerator's
// device, so matrix products and convolutions compute in the low precision while reductions
// and losses stay in float32.
//
// bfloat16 has float32's range and needs no loss scaling. float16 ("16-mixed") has a
// GradScaler: the loss is scaled before backward, the gradients unscaled before the
// on_before_optimizer_step hooks and clipping (so they see true gradients), and a step whose
// gradients are not finite is skipped (`last_step_skipped()`: the Trainer then does not step
// the LR schedulers either). The scaler's state goes into checkpoints under "MixedPrecision".
#include <memory>

#include "fulgur/precision/grad_scaler.h"
#include "fulgur/precision/precision.h"

namespace fulgur {

class MixedPrecision : public Precision {
 public:
  // float16 always gets a scaler (a default one when none is given); bfloat16 only when one is
  // given. `device`: where autocast applies; the AcceleratorConnector sets the accelerator's.
  explicit MixedPrecision(c10::ScalarType dtype = torch::kBFloat16,
                          c10::DeviceType device = c10::kCPU,
                          std::shared_ptr<GradScaler> scaler = nullptr);
  std::string name() const override;
  std::string state_key() const override { return "MixedPrecision"; }
  c10::ScalarType dtype() const { return dtype_; }
  c10::DeviceType device_type() const { return device_; }
  // Raises ConfigError when this LibTorch cannot autocast `device` to this dtype.
  void set_device_type(c10::DeviceType device);
  GradScaler* scaler() const { return scaler_.get(); }

  std::unique_ptr<ForwardScope> forward_context() override;
  torch::Tensor pre_backward(const torch::Tensor& loss) override;
  torch::Tensor optimizer_step(torch::optim::Optimizer& optimizer, const Closure& closure,
                               const std::function<void()>& after_closure) override;
  bool last_step_skipped() const override { return skipped_; }
  void unscale_gradients(torch::optim::Optimizer& optimizer) override;
  c10::IValue state_dict() const override;
  void load_state_dict(const c10::IValue& state) override;

 private:
  c10::ScalarType dtype_;
  c10::DeviceType device_;
  std::shared_ptr<GradScaler> scaler_;
  bool skipped_ = false;
};

}  // namespace fulgur
