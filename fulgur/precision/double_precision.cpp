#include "fulgur/precision/double_precision.h"

#include "fulgur/precision/default_dtype_scope.h"

namespace fulgur {

void DoublePrecision::convert_module(torch::nn::Module& module) { module.to(torch::kFloat64); }

torch::Tensor DoublePrecision::convert_input(const torch::Tensor& input) {
  if (!input.defined() || !input.is_floating_point()) return input;
  return input.to(torch::kFloat64);
}

std::unique_ptr<ForwardScope> DoublePrecision::forward_context() {
  return std::make_unique<DefaultDtypeScope>(caffe2::TypeMeta::Make<double>());
}

}  // namespace fulgur
