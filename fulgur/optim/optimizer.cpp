#include "fulgur/optim/optimizer.h"

#include "fulgur/compat/optim.h"
#include "fulgur/errors.h"

namespace fulgur {

Optimizer::Optimizer(std::shared_ptr<torch::optim::Optimizer> optimizer)
    : optimizer_(std::move(optimizer)) {
  if (!optimizer_) {
    throw ConfigError(
        "fulgur::Optimizer was given a null LibTorch optimizer; pass the optimizer that "
        "configure_optimizers creates (e.g. std::make_shared<torch::optim::SGD>(...))");
  }
}

torch::Tensor Optimizer::step(const Closure& closure) {
  if (step_fn_) return step_fn_(*optimizer_, closure);
  // LibTorch's optimizers accept an empty closure, except LBFGS, which says so itself.
  return optimizer_->step(closure);
}

void Optimizer::zero_grad(bool set_to_none) { compat::zero_grad(*optimizer_, set_to_none); }

}  // namespace fulgur
