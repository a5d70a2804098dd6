#include "fulgur/precision/double_precision.h"

#include <c10/core/DefaultDtype.h>

namespace fulgur {
namespace {

class DefaultDtypeScope : public ForwardScope {
 public:
  explicit DefaultDtypeScope(caffe2::TypeMeta dtype) : previous_(c10::get_default_dtype()) {
    c10::set_default_dtype(dtype);
  }
  ~DefaultDtypeScope() override { c10::set_default_dtype(previous_); }
  DefaultDtypeScope(const DefaultDtypeScope&) = delete;
  DefaultDtypeScope& operator=(const DefaultDtypeScope&) = delete;

 private:
  caffe2::TypeMeta previous_;
};

}  // namespace

void DoublePrecision::convert_module(torch::nn::Module& module) { module.to(torch::kFloat64); }

torch::Tensor DoublePrecision::convert_input(const torch::Tensor& input) {
  if (!input.defined() || !input.is_floating_point()) return input;
  return input.to(torch::kFloat64);
}

std::unique_ptr<ForwardScope> DoublePrecision::forward_context() {
  return std::make_unique<DefaultDtypeScope>(caffe2::TypeMeta::Make<double>());
}

}  // namespace fulgur
