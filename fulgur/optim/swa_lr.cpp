#include "fulgur/optim/swa_lr.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "fulgur/errors.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {
namespace {

const std::vector<std::string> kStrategies = {"cos", "linear"};

// What is wrong with these settings, or "" when nothing is.
std::string settings_problem(int64_t anneal_epochs, const std::string& anneal_strategy) {
  if (std::find(kStrategies.begin(), kStrategies.end(), anneal_strategy) == kStrategies.end()) {
    return fmt::format("anneal_strategy must be one of 'cos' or 'linear', got '{}'",
                       anneal_strategy);
  }
  if (anneal_epochs < 0) {
    return fmt::format("anneal_epochs must be equal or greater than 0, got {}", anneal_epochs);
  }
  return "";
}

}  // namespace

SWALR::SWALR(torch::optim::Optimizer& optimizer, double swa_lr, int64_t anneal_epochs,
             std::string anneal_strategy)
    : SWALR(optimizer, std::vector<double>(optimizer.param_groups().size(), swa_lr), anneal_epochs,
            std::move(anneal_strategy)) {}

SWALR::SWALR(torch::optim::Optimizer& optimizer, std::vector<double> swa_lrs, int64_t anneal_epochs,
             std::string anneal_strategy)
    : LRScheduler(optimizer),
      swa_lrs_(std::move(swa_lrs)),
      anneal_epochs_(anneal_epochs),
      anneal_strategy_(std::move(anneal_strategy)) {
  const std::string where =
      fmt::format("SWALR(swa_lrs=[{}], anneal_epochs={}, anneal_strategy='{}')",
                  fmt::join(swa_lrs_, ", "), anneal_epochs_, anneal_strategy_);
  if (swa_lrs_.size() != optimizer.param_groups().size()) {
    throw ConfigError(fmt::format(
        "{}: swa_lr must have the same length as the optimizer's param groups: swa_lr has {}, "
        "the optimizer has {} param groups",
        where, swa_lrs_.size(), optimizer.param_groups().size()));
  }
  if (std::string problem = settings_problem(anneal_epochs_, anneal_strategy_); !problem.empty()) {
    throw ConfigError(fmt::format("{}: {}", where, problem));
  }
  initial_step();
}

double SWALR::anneal(double t) const {
  if (anneal_strategy_ == "linear") return t;
  return (1.0 - std::cos(std::numbers::pi * t)) / 2.0;
}

std::vector<double> SWALR::compute_lrs(std::optional<double> /*metric*/) {
  // torch 1.13's get_lr, operation for operation: the rate the group would have had without
  // the previous annealing step, moved on by this step's alpha.
  int64_t step = step_count_ - 1;
  if (anneal_epochs_ == 0) step = std::max<int64_t>(1, step);
  const double span = static_cast<double>(std::max<int64_t>(1, anneal_epochs_));
  auto clamp01 = [](double t) { return std::max(0.0, std::min(1.0, t)); };
  const double prev_alpha = anneal(clamp01(static_cast<double>(step - 1) / span));
  const double alpha = anneal(clamp01(static_cast<double>(step) / span));
  std::vector<double> lrs = current_lrs();
  lrs.resize(std::min(lrs.size(), swa_lrs_.size()));  // later groups keep their rates
  for (size_t i = 0; i < lrs.size(); ++i) {
    const double swa_lr = swa_lrs_[i];
    const double start =
        prev_alpha == 1.0 ? swa_lr : (lrs[i] - prev_alpha * swa_lr) / (1.0 - prev_alpha);
    lrs[i] = swa_lr * alpha + start * (1.0 - alpha);
  }
  return lrs;
}

void SWALR::save_settings(c10::impl::GenericDict& state) const {
  state.insert("anneal_epochs", anneal_epochs_);
}

void SWALR::load_settings(const c10::impl::GenericDict& state) {
  anneal_epochs_ = static_cast<int64_t>(number_at(state, "anneal_epochs"));
}

void SWALR::save_extra_state(c10::impl::GenericDict& state) const {
  c10::List<double> swa_lrs;
  for (double lr : swa_lrs_) swa_lrs.push_back(lr);
  state.insert("swa_lrs", swa_lrs);
  state.insert("anneal_strategy", anneal_strategy_);
}

void SWALR::check_extra_state(const c10::impl::GenericDict& state,
                              const std::string& source) const {
  SchedulerStateReader reader(state, source, name());
  reader.numbers("swa_lrs", swa_lrs_.size());
  const std::string problem = settings_problem(static_cast<int64_t>(reader.number("anneal_epochs")),
                                               reader.choice("anneal_strategy", kStrategies));
  if (!problem.empty()) reader.fail(fmt::format("has settings SWALR rejects: {}", problem));
}

void SWALR::load_extra_state(const c10::impl::GenericDict& state) {
  SchedulerStateReader reader(state, "", name());
  swa_lrs_ = reader.numbers("swa_lrs", swa_lrs_.size());
  anneal_strategy_ = reader.choice("anneal_strategy", kStrategies);
}

}  // namespace fulgur
