#include "fulgur/optim/polynomial_lr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "fulgur/errors.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {
namespace {

// What is wrong with these settings, or "" when nothing is. torch 1.13 divides by zero for
// total_iters 0, and raises zero to a negative power at period total_iters.
std::string settings_problem(int64_t total_iters, double power) {
  if (total_iters < 1) {
    return fmt::format(
        "total_iters must be at least 1 (the number of periods until the rate reaches zero), "
        "got {}",
        total_iters);
  }
  if (!(power >= 0.0)) return fmt::format("power must be at least 0, got {}", power);
  return "";
}

}  // namespace

PolynomialLR::PolynomialLR(torch::optim::Optimizer& optimizer, int64_t total_iters, double power)
    : LRScheduler(optimizer), total_iters_(total_iters), power_(power) {
  if (std::string problem = settings_problem(total_iters, power); !problem.empty()) {
    throw ConfigError(
        fmt::format("PolynomialLR(total_iters={}, power={}): {}", total_iters, power, problem));
  }
}

std::vector<double> PolynomialLR::compute_lrs(std::optional<double> /*metric*/) {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0 || last_epoch_ > total_iters_) return lrs;
  // torch 1.13's get_lr, in its order of operations.
  const auto e = static_cast<double>(last_epoch_);
  const auto t = static_cast<double>(total_iters_);
  const double decay = std::pow((1.0 - e / t) / (1.0 - (e - 1) / t), power_);
  for (auto& lr : lrs) lr *= decay;
  return lrs;
}

std::optional<std::vector<double>> PolynomialLR::closed_form_lrs() const {
  const auto e = static_cast<double>(std::min(total_iters_, last_epoch_));
  const double factor = std::pow(1.0 - e / static_cast<double>(total_iters_), power_);
  std::vector<double> lrs = base_lrs_;
  for (auto& lr : lrs) lr *= factor;
  return lrs;
}

void PolynomialLR::save_settings(c10::impl::GenericDict& state) const {
  state.insert("total_iters", total_iters_);
  state.insert("power", power_);
}

void PolynomialLR::load_settings(const c10::impl::GenericDict& state) {
  total_iters_ = static_cast<int64_t>(number_at(state, "total_iters"));
  power_ = number_at(state, "power");
}

void PolynomialLR::check_extra_state(const c10::impl::GenericDict& state,
                                     const std::string& source) const {
  SchedulerStateReader reader(state, source, name());
  std::string problem =
      settings_problem(static_cast<int64_t>(reader.number("total_iters")), reader.number("power"));
  if (!problem.empty()) reader.fail(fmt::format("has settings PolynomialLR rejects: {}", problem));
}

}  // namespace fulgur
