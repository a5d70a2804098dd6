#include "fulgur/optim/step_lr.h"

#include <fmt/format.h>

#include <cmath>

#include "fulgur/errors.h"
#include "fulgur/optim/scheduler_state_reader.h"

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
  // equals base * gamma^(last_epoch / step_size). Period 0 (construction, or the start under
  // SequentialLR) keeps the groups' rates, as PyTorch's does.
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ != 0 && last_epoch_ % step_size_ == 0) {
    for (auto& lr : lrs) lr *= gamma_;
  }
  return lrs;
}

std::optional<std::vector<double>> StepLR::closed_form_lrs() const {
  std::vector<double> lrs = base_lrs_;
  const double decay = std::pow(gamma_, static_cast<double>(last_epoch_ / step_size_));
  for (auto& lr : lrs) lr *= decay;
  return lrs;
}

void StepLR::save_settings(c10::impl::GenericDict& state) const {
  state.insert("step_size", step_size_);
  state.insert("gamma", gamma_);
}

void StepLR::load_settings(const c10::impl::GenericDict& state) {
  step_size_ = static_cast<int64_t>(number_at(state, "step_size"));
  gamma_ = number_at(state, "gamma");
}

void StepLR::check_extra_state(const c10::impl::GenericDict& state,
                               const std::string& source) const {
  SchedulerStateReader reader(state, source, name());
  if (reader.number("step_size") < 1) reader.fail("has a step_size below 1");
}

}  // namespace fulgur
