#pragma once
// Precision: how numbers are represented during training. The Strategy owns one and routes
// every forward, backward and optimizer step through it; loops never touch autocast or
// gradient scaling. This base class is full 32-bit precision ("32-true").
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include "fulgur/io/checkpoint_io.h"
#include "fulgur/optim/grad_clip.h"
#include "fulgur/optim/optimizer.h"

namespace fulgur {

class Module;

// Something active for the duration of a forward pass (an autocast region); ends on destruction.
class ForwardScope {
 public:
  virtual ~ForwardScope() = default;
};

class Precision {
 public:
  virtual ~Precision() = default;
  // The flag value this plugin implements, e.g. "32-true".
  virtual std::string name() const { return "32-true"; }
  // Key of this plugin's state in checkpoints (Lightning's class name).
  virtual std::string state_key() const { return "Precision"; }

  // Parameters and buffers into the training dtype (e.g. float64 for "64-true").
  virtual void convert_module(torch::nn::Module& module) { (void)module; }
  // Floating-point inputs into the training dtype.
  virtual torch::Tensor convert_input(const torch::Tensor& input) { return input; }
  // A scope around every step's forward; null when there is nothing to enter.
  virtual std::unique_ptr<ForwardScope> forward_context() { return nullptr; }

  // The loss as backward should see it (scaled, for mixed precision).
  virtual torch::Tensor pre_backward(const torch::Tensor& loss) { return loss; }
  // Backward of the (scaled) loss through the Module's `backward` hook when there is a Module.
  virtual void backward(const torch::Tensor& loss, Module* module = nullptr);

  // Runs `closure` (forward + backward), then `after_closure` (the on_before_optimizer_step
  // hooks and gradient clipping, which must see true gradients), then steps `optimizer` —
  // or skips the step when gradients are not finite (mixed precision).
  virtual torch::Tensor optimizer_step(torch::optim::Optimizer& optimizer, const Closure& closure,
                                       const std::function<void()>& after_closure);

  // Whether the last optimizer_step skipped the optimizer (gradients not finite under loss
  // scaling); the Trainer then leaves the step-interval LR schedulers alone too.
  virtual bool last_step_skipped() const { return false; }

  // Gradients back to their true values before they are clipped outside a step (Fabric's
  // clip_gradients); nothing to do without loss scaling.
  virtual void unscale_gradients(torch::optim::Optimizer& optimizer) { (void)optimizer; }

  // Clips gradients in place: by total 2-norm or by value.
  virtual void clip_gradients(torch::optim::Optimizer& optimizer, double clip_val,
                              GradClipAlgorithm algorithm);

  // State stored in checkpoints (e.g. the grad scaler); none for full precision.
  virtual c10::IValue state_dict() const { return c10::IValue(); }
  virtual void load_state_dict(const c10::IValue& state) { (void)state; }
};

}  // namespace fulgur
