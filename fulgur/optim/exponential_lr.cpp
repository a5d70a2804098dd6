#include "fulgur/optim/exponential_lr.h"

#include <cmath>

namespace fulgur {

ExponentialLR::ExponentialLR(torch::optim::Optimizer& optimizer, double gamma)
    : LRScheduler(optimizer), gamma_(gamma) {}

std::vector<double> ExponentialLR::compute_lrs(std::optional<double> /*metric*/) {
  // Chainable: decay what the groups hold now. Period 0 (construction, or the start under
  // SequentialLR) keeps them, as PyTorch's does.
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0) return lrs;
  for (auto& lr : lrs) lr *= gamma_;
  return lrs;
}

std::optional<std::vector<double>> ExponentialLR::closed_form_lrs() const {
  const double decay = std::pow(gamma_, static_cast<double>(last_epoch_));
  std::vector<double> lrs = base_lrs_;
  for (auto& lr : lrs) lr *= decay;
  return lrs;
}

void ExponentialLR::save_settings(c10::impl::GenericDict& state) const {
  state.insert("gamma", gamma_);
}

void ExponentialLR::load_settings(const c10::impl::GenericDict& state) {
  gamma_ = number_at(state, "gamma");
}

}  // namespace fulgur
