#pragma once
// "bf16-mixed" (Lightning's MixedPrecision): parameters, gradients and the optimizer stay in
// float32, and each step's forward runs under autocast, so matrix products and convolutions
// compute in bfloat16 while reductions and losses stay in float32. bfloat16 has float32's
// range, so gradients need no loss scaling. ("16-mixed", float16 with a loss scaler, is still
// to come.)
#include "fulgur/precision/precision.h"

namespace fulgur {

class MixedPrecision : public Precision {
 public:
  // `device`: the device type autocast applies to; the AcceleratorConnector sets the
  // accelerator's.
  explicit MixedPrecision(c10::ScalarType dtype = torch::kBFloat16,
                          c10::DeviceType device = c10::kCPU);
  std::string name() const override { return "bf16-mixed"; }
  std::string state_key() const override { return "MixedPrecision"; }
  c10::ScalarType dtype() const { return dtype_; }
  c10::DeviceType device_type() const { return device_; }
  void set_device_type(c10::DeviceType device);
  std::unique_ptr<ForwardScope> forward_context() override;

 private:
  c10::ScalarType dtype_;
  c10::DeviceType device_;
};

}  // namespace fulgur
