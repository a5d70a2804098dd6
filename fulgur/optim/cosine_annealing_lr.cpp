#include "fulgur/optim/cosine_annealing_lr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "fulgur/errors.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {

CosineAnnealingLR::CosineAnnealingLR(torch::optim::Optimizer& optimizer, int64_t T_max,
                                     double eta_min)
    : LRScheduler(optimizer), t_max_(T_max), eta_min_(eta_min) {
  if (t_max_ < 1) {
    throw ConfigError(fmt::format(
        "CosineAnnealingLR(T_max={}): T_max must be at least 1 (the number of periods from the "
        "base rate down to eta_min)",
        t_max_));
  }
}

std::vector<double> CosineAnnealingLR::compute_lrs(std::optional<double> /*metric*/) {
  // torch 1.13's get_lr, branch for branch and in its order of operations, so the recursion
  // accumulates the same rounding as PyTorch's.
  constexpr double pi = std::numbers::pi;
  const auto e = static_cast<double>(last_epoch_);
  const auto t = static_cast<double>(t_max_);
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0) return lrs;
  if (step_count_ == 1 && last_epoch_ > 0) {
    // Only after a load_state_dict that left _step_count at 1: PyTorch's resume branch.
    for (size_t i = 0; i < std::min(lrs.size(), base_lrs_.size()); ++i) {
      lrs[i] = eta_min_ + (base_lrs_[i] - eta_min_) * (1 + std::cos(e * pi / t)) / 2;
    }
  } else if ((last_epoch_ - 1 - t_max_) % (2 * t_max_) == 0) {
    // At the bottom of the cosine the recursion below would divide by 1 + cos(pi) = 0.
    for (size_t i = 0; i < std::min(lrs.size(), base_lrs_.size()); ++i) {
      lrs[i] = lrs[i] + (base_lrs_[i] - eta_min_) * (1 - std::cos(pi / t)) / 2;
    }
  } else {
    for (auto& lr : lrs) {
      lr = (1 + std::cos(pi * e / t)) / (1 + std::cos(pi * (e - 1) / t)) * (lr - eta_min_) +
           eta_min_;
    }
  }
  return lrs;
}

std::optional<std::vector<double>> CosineAnnealingLR::closed_form_lrs() const {
  constexpr double pi = std::numbers::pi;
  const auto e = static_cast<double>(last_epoch_);
  const auto t = static_cast<double>(t_max_);
  std::vector<double> lrs = base_lrs_;
  for (auto& lr : lrs) lr = eta_min_ + (lr - eta_min_) * (1 + std::cos(pi * e / t)) / 2;
  return lrs;
}

void CosineAnnealingLR::save_settings(c10::impl::GenericDict& state) const {
  state.insert("T_max", t_max_);
  state.insert("eta_min", eta_min_);
}

void CosineAnnealingLR::load_settings(const c10::impl::GenericDict& state) {
  t_max_ = static_cast<int64_t>(number_at(state, "T_max"));
  eta_min_ = number_at(state, "eta_min");
}

void CosineAnnealingLR::check_extra_state(const c10::impl::GenericDict& state,
                                          const std::string& source) const {
  SchedulerStateReader reader(state, source, name());
  if (reader.number("T_max") < 1) reader.fail("has a T_max below 1");
}

}  // namespace fulgur
