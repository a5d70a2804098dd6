#include "fulgur/precision/half_precision.h"

#include "fulgur/errors.h"
#include "fulgur/precision/default_dtype_scope.h"

namespace fulgur {

HalfPrecision::HalfPrecision(c10::ScalarType dtype) : dtype_(dtype) {
  if (dtype != torch::kBFloat16 && dtype != torch::kHalf) {
    throw ConfigError(std::string("HalfPrecision takes bfloat16 or float16, not ") +
                      c10::toString(dtype));
  }
}

std::string HalfPrecision::name() const {
  return dtype_ == torch::kBFloat16 ? "bf16-true" : "16-true";
}

void HalfPrecision::convert_module(torch::nn::Module& module) { module.to(dtype_); }

torch::Tensor HalfPrecision::convert_input(const torch::Tensor& input) {
  if (!input.defined() || !input.is_floating_point()) return input;
  return input.to(dtype_);
}

std::unique_ptr<ForwardScope> HalfPrecision::forward_context() {
  return std::make_unique<DefaultDtypeScope>(c10::scalarTypeToTypeMeta(dtype_));
}

}  // namespace fulgur
