#include "fulgur/precision/precision.h"

#include <torch/nn/utils/clip_grad.h>

#include "fulgur/module.h"

namespace fulgur {

void Precision::backward(const torch::Tensor& loss, Module* module) {
  if (module != nullptr) {
    module->backward(loss);
  } else {
    loss.backward();
  }
}

torch::Tensor Precision::optimizer_step(torch::optim::Optimizer& optimizer, const Closure& closure,
                                        const std::function<void()>& after_closure) {
  // The optimizer runs the closure itself (LBFGS may run it several times); the hooks and
  // clipping go right after each run so they see the gradients that step will use.
  return optimizer.step([&] {
    auto loss = closure ? closure() : torch::Tensor();
    if (after_closure) after_closure();
    return loss;
  });
}

void Precision::clip_gradients(torch::optim::Optimizer& optimizer, double clip_val,
                               GradClipAlgorithm algorithm) {
  // Lightning treats a non-positive clip value as "no clipping".
  if (clip_val <= 0) return;
  std::vector<torch::Tensor> params;
  for (auto& group : optimizer.param_groups()) {
    for (auto& param : group.params()) {
      if (param.grad().defined()) params.push_back(param);
    }
  }
  if (params.empty()) return;
  if (algorithm == GradClipAlgorithm::Norm) {
    torch::nn::utils::clip_grad_norm_(params, clip_val);
  } else {
    torch::nn::utils::clip_grad_value_(params, clip_val);
  }
}

}  // namespace fulgur
