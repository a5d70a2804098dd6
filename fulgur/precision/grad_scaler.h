#pragma once
// GradScaler: dynamic loss scaling for float16 mixed precision (PyTorch's torch.amp.GradScaler,
// which LibTorch's C++ API lacks). float16 gradients of small losses underflow to zero; the loss
// is multiplied by a large scale before backward and the gradients divided by it before the
// optimizer sees them. When a gradient is inf or NaN the step is skipped and the scale backed
// off; after `growth_interval` good steps in a row it grows.
//
// The scale, the growth tracker and the inf flag stay on the gradients' device and are updated
// there (LibTorch's AMP kernels on CUDA, plain tensor operations elsewhere); the one host read
// per step is whether to skip, as in PyTorch.
#include <cstdint>

#include <torch/optim/optimizer.h>

namespace fulgur {

struct GradScalerOptions {
  double init_scale = 65536.0;  // 2^16, PyTorch's and Lightning's default
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
};

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});
  const GradScalerOptions& options() const { return options_; }

  // loss × scale.
  torch::Tensor scale(const torch::Tensor& loss);
  // Divides the optimizer's gradients by the scale in place and notes whether any is not
  // finite. Once per optimizer step, before clipping and before the hooks look at gradients.
  void unscale(torch::optim::Optimizer& optimizer);
  // Steps `optimizer` unless its gradients were not finite; returns whether it stepped.
  // Unscales first if `unscale` was not called for this step.
  bool step(torch::optim::Optimizer& optimizer);
  // Whether `unscale` ran for the step in progress.
  bool unscaled() const { return unscaled_; }
  // After each step: backoff when it was skipped, growth after growth_interval good steps.
  void update();

  // Host reads, for tests, logging and checkpoints.
  double current_scale() const;
  int64_t growth_tracker() const;

  // PyTorch's keys: scale, growth_factor, backoff_factor, growth_interval, _growth_tracker.
  c10::IValue state_dict() const;
  void load_state_dict(const c10::IValue& state);

 private:
  void lazy_init(const torch::Device& device);

  GradScalerOptions options_;
  torch::Tensor scale_;           // float32 [1]
  torch::Tensor growth_tracker_;  // int32 [1]
  torch::Tensor found_inf_;       // float32 [1]: 1 when this step's gradients were not finite
  bool unscaled_ = false;
};

}  // namespace fulgur
