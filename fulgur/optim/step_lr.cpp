#include "fulgur/optim/step_lr.h"

#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur {

StepLR::StepLR(torch::optim::Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  if (step_size_ < 1) {
    throw ConfigError(fmt::format(
        "StepLR(step_size={}): step_size must be at least 1 (the number of periods between "
        "two decays)",
        step_size_));
  }
}

std::vector<double> StepLR::compute_lrs(std::optional<double> /*metric*/) {
  // PyTorch's chainable form: decay what the groups hold now, so a rate changed by the user
  // or by another scheduler is decayed rather than overwritten. Without such changes it
  // equals base * gamma^(last_epoch / step_size).
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ % step_size_ == 0) {
    for (auto& lr : lrs) lr *= gamma_;
  }
  return lrs;
}

void StepLR::save_settings(c10::impl::GenericDict& state) const {
  state.insert("step_size", step_size_);
  state.insert("gamma", gamma_);
}

void StepLR::load_settings(const c10::impl::GenericDict& state) {
  // Both are numbers (checked by LRScheduler::load_state_dict).
  const auto number = [&](const char* key) {
    const auto& v = state.at(key);
    return v.isDouble() ? v.toDouble() : static_cast<double>(v.toInt());
  };
  step_size_ = static_cast<int64_t>(number("step_size"));
  gamma_ = number("gamma");
}

}  // namespace fulgur
