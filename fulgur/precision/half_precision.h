#pragma once
// "bf16-true" and "16-true" (Lightning's HalfPrecision): parameters, buffers and floating-point
// inputs in bfloat16 or float16, and the default dtype the same during each step's forward. Half
// the memory of float32 and no float32 master weights: for inference-like fine-tuning, not for
// training from scratch. On the CPU, "16-true" needs a LibTorch whose kernels compute in
// float16 (2.1+); the AcceleratorConnector refuses it otherwise.
#include "fulgur/precision/precision.h"

namespace fulgur {

class HalfPrecision : public Precision {
 public:
  // `dtype`: torch::kBFloat16 ("bf16-true") or torch::kHalf ("16-true").
  explicit HalfPrecision(c10::ScalarType dtype);
  std::string name() const override;
  std::string state_key() const override { return "HalfPrecision"; }
  c10::ScalarType dtype() const { return dtype_; }
  void convert_module(torch::nn::Module& module) override;
  torch::Tensor convert_input(const torch::Tensor& input) override;
  std::unique_ptr<ForwardScope> forward_context() override;

 private:
  c10::ScalarType dtype_;
};

}  // namespace fulgur
