#pragma once
// "64-true": parameters, buffers and floating-point inputs in float64. During each step's
// forward the default dtype is float64 too, so tensors the step creates without a dtype match
// the model (Lightning's DoublePrecision does the same); it is restored when the scope ends.
#include "fulgur/precision/precision.h"

namespace fulgur {

class DoublePrecision : public Precision {
 public:
  std::string name() const override { return "64-true"; }
  std::string state_key() const override { return "DoublePrecision"; }
  void convert_module(torch::nn::Module& module) override;
  torch::Tensor convert_input(const torch::Tensor& input) override;
  std::unique_ptr<ForwardScope> forward_context() override;
};

}  // namespace fulgur
