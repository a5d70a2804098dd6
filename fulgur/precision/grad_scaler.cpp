#include "fulgur/precision/grad_scaler.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/io/checkpoint_io.h"
#include "fulgur/io/state_fields.h"

namespace fulgur {
namespace {

std::vector<at::Tensor> gradients_of(torch::optim::Optimizer& optimizer) {
  std::vector<at::Tensor> grads;
  for (auto& group : optimizer.param_groups()) {
    for (auto& param : group.params()) {
      if (param.grad().defined()) grads.push_back(param.grad());
    }
  }
  return grads;
}

// Whether this LibTorch has the fused AMP kernels for `device` (CUDA always; CPU from 2.x),
// found once per device type by running them on a one-element tensor.
bool has_amp_kernels(c10::DeviceType device) {
  if (device == c10::kCUDA) return true;
  if (device != c10::kCPU) return false;
  static const bool cpu = [] {
    try {
      auto grads = std::vector<at::Tensor>{torch::ones({1})};
      auto found_inf = torch::zeros({1});
      auto scale = torch::ones({1});
      at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf, scale);
      auto tracker = torch::zeros({1}, torch::kInt32);
      at::_amp_update_scale_(scale, tracker, found_inf, 2.0, 0.5, 2000);
      return true;
    } catch (const c10::Error&) {
      return false;
    }
  }();
  return cpu;
}

}  // namespace

GradScaler::GradScaler(GradScalerOptions options) : options_(options) {
  if (!(options_.init_scale > 0) || !(options_.growth_factor > 1) ||
      !(options_.backoff_factor > 0 && options_.backoff_factor < 1) ||
      options_.growth_interval < 1) {
    throw ConfigError(fmt::format(
        "GradScaler(init_scale={}, growth_factor={}, backoff_factor={}, growth_interval={}): "
        "needs init_scale > 0, growth_factor > 1, 0 < backoff_factor < 1, growth_interval >= 1",
        options_.init_scale, options_.growth_factor, options_.backoff_factor,
        options_.growth_interval));
  }
}

void GradScaler::lazy_init(const torch::Device& device) {
  if (scale_.defined()) {
    if (scale_.device() != device) {
      scale_ = scale_.to(device);
      growth_tracker_ = growth_tracker_.to(device);
    }
    return;
  }
  scale_ = torch::full({1}, options_.init_scale, torch::dtype(torch::kFloat32).device(device));
  growth_tracker_ = torch::zeros({1}, torch::dtype(torch::kInt32).device(device));
}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) {
  lazy_init(loss.device());
  return loss * scale_.to(loss.scalar_type());
}

void GradScaler::unscale(torch::optim::Optimizer& optimizer) {
  if (unscaled_) {
    throw MisconfigurationError(
        "GradScaler::unscale was called twice for one optimizer step; call it once, before "
        "step()");
  }
  auto grads = gradients_of(optimizer);
  const auto device = grads.empty() ? torch::Device(torch::kCPU) : grads.front().device();
  lazy_init(device);
  found_inf_ = torch::zeros({1}, torch::dtype(torch::kFloat32).device(device));
  // float64 reciprocal, as PyTorch, so a large scale loses nothing.
  const auto inv_scale = scale_.to(torch::kFloat64).reciprocal().to(torch::kFloat32);
  if (has_amp_kernels(device.type())) {
    at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf_, inv_scale);
  } else {
    // This build has no AMP kernels for the device (LibTorch before 2.x on CPU): the same with
    // plain tensor operations.
    for (auto& grad : grads) {
      found_inf_ = torch::maximum(found_inf_,
                                  grad.isfinite().logical_not().any().to(torch::kFloat32).view({1}));
      grad.mul_(inv_scale.to(grad.scalar_type()));
    }
  }
  unscaled_ = true;
}

bool GradScaler::step(torch::optim::Optimizer& optimizer) {
  if (!unscaled_) unscale(optimizer);
  const bool finite = found_inf_.item<float>() == 0.0f;
  if (finite) optimizer.step();
  return finite;
}

void GradScaler::update() {
  if (!scale_.defined() || !found_inf_.defined()) return;
  if (has_amp_kernels(scale_.device().type())) {
    at::_amp_update_scale_(scale_, growth_tracker_, found_inf_, options_.growth_factor,
                           options_.backoff_factor, options_.growth_interval);
  } else {
    const auto skipped = found_inf_ > 0;
    const auto grown = growth_tracker_ + 1;
    const auto grow = grown >= options_.growth_interval;
    scale_ = torch::where(skipped, scale_ * options_.backoff_factor,
                          torch::where(grow, scale_ * options_.growth_factor, scale_));
    growth_tracker_ = torch::where(skipped.logical_or(grow), torch::zeros_like(grown), grown);
  }
  unscaled_ = false;
  found_inf_ = torch::Tensor();
}

double GradScaler::current_scale() const {
  return scale_.defined() ? scale_.item<double>() : options_.init_scale;
}

int64_t GradScaler::growth_tracker() const {
  return growth_tracker_.defined() ? growth_tracker_.item<int64_t>() : 0;
}

c10::IValue GradScaler::state_dict() const {
  auto state = make_checkpoint_dict();
  state.insert("scale", current_scale());
  state.insert("growth_factor", options_.growth_factor);
  state.insert("backoff_factor", options_.backoff_factor);
  state.insert("growth_interval", options_.growth_interval);
  state.insert("_growth_tracker", growth_tracker());
  return state;
}

void GradScaler::load_state_dict(const c10::IValue& state) {
  // Everything read before anything changes, so a bad state leaves the scaler as it was.
  const auto dict = state_dict_of(state, "GradScaler");
  const double scale = number_field(dict, "scale", "GradScaler");
  const double growth_factor = number_field(dict, "growth_factor", "GradScaler");
  const double backoff_factor = number_field(dict, "backoff_factor", "GradScaler");
  const int64_t growth_interval = integer_field(dict, "growth_interval", "GradScaler");
  const int64_t tracker = integer_field(dict, "_growth_tracker", "GradScaler");
  options_.growth_factor = growth_factor;
  options_.backoff_factor = backoff_factor;
  options_.growth_interval = growth_interval;
  const auto device = scale_.defined() ? scale_.device() : torch::Device(torch::kCPU);
  scale_ = torch::full({1}, scale, torch::dtype(torch::kFloat32).device(device));
  growth_tracker_ = torch::full({1}, tracker, torch::dtype(torch::kInt32).device(device));
}

}  // namespace fulgur
