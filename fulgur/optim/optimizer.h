#pragma once
// A LibTorch optimizer as the Module sees it (Lightning's LightningOptimizer): `step` goes
// through the Strategy, so precision (unscale, skip on inf), clipping and the
// `on_before_optimizer_step` hooks apply in automatic and manual optimization alike.
#include <functional>
#include <memory>

#include <torch/optim/optimizer.h>

namespace fulgur {

using Closure = std::function<torch::Tensor()>;

class Optimizer {
 public:
  // How a step is carried out; the Trainer installs one that routes to its Strategy.
  using StepFn = std::function<torch::Tensor(torch::optim::Optimizer&, const Closure&)>;

  explicit Optimizer(std::shared_ptr<torch::optim::Optimizer> optimizer);

  // Runs `closure` (if any) and steps; without a Trainer it steps the LibTorch optimizer directly.
  torch::Tensor step(const Closure& closure = nullptr);
  void zero_grad(bool set_to_none = true);

  torch::optim::Optimizer& optimizer() { return *optimizer_; }
  const std::shared_ptr<torch::optim::Optimizer>& shared() const { return optimizer_; }
  std::vector<torch::optim::OptimizerParamGroup>& param_groups() {
    return optimizer_->param_groups();
  }
  void set_step_fn(StepFn fn) { step_fn_ = std::move(fn); }

 private:
  std::shared_ptr<torch::optim::Optimizer> optimizer_;
  StepFn step_fn_;
};

}  // namespace fulgur
