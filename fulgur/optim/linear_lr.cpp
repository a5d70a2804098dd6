#include "fulgur/optim/linear_lr.h"

#include <fmt/format.h>

#include <algorithm>

#include "fulgur/errors.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {
namespace {

// What is wrong with these settings, or "" when nothing is. torch 1.13 accepts start_factor 0
// and total_iters 0 but then divides by zero (at the first step, or in its closed form).
std::string settings_problem(double start_factor, double end_factor, int64_t total_iters) {
  if (!(start_factor > 0.0 && start_factor <= 1.0)) {
    return fmt::format(
        "start_factor must be in (0, 1] (it multiplies the rate at period 0), got {}",
        start_factor);
  }
  if (!(end_factor >= 0.0 && end_factor <= 1.0)) {
    return fmt::format("end_factor must be in [0, 1], got {}", end_factor);
  }
  if (total_iters < 1) {
    return fmt::format(
        "total_iters must be at least 1 (the period at which the factor reaches end_factor), "
        "got {}",
        total_iters);
  }
  return "";
}

}  // namespace

LinearLR::LinearLR(torch::optim::Optimizer& optimizer, double start_factor, double end_factor,
                   int64_t total_iters)
    : LRScheduler(optimizer),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  if (std::string problem = settings_problem(start_factor, end_factor, total_iters);
      !problem.empty()) {
    throw ConfigError(fmt::format("LinearLR(start_factor={}, end_factor={}, total_iters={}): {}",
                                  start_factor, end_factor, total_iters, problem));
  }
  initial_step();
}

std::vector<double> LinearLR::compute_lrs(std::optional<double> /*metric*/) {
  // torch 1.13's get_lr: the ratio of consecutive factors, applied to the groups' rates.
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0) {
    for (auto& lr : lrs) lr *= start_factor_;
    return lrs;
  }
  if (last_epoch_ > total_iters_) return lrs;
  const double ratio =
      1. + (end_factor_ - start_factor_) /
               (static_cast<double>(total_iters_) * start_factor_ +
                static_cast<double>(last_epoch_ - 1) * (end_factor_ - start_factor_));
  for (auto& lr : lrs) lr *= ratio;
  return lrs;
}

std::optional<std::vector<double>> LinearLR::closed_form_lrs() const {
  const double factor =
      start_factor_ + (end_factor_ - start_factor_) *
                          static_cast<double>(std::min(total_iters_, last_epoch_)) /
                          static_cast<double>(total_iters_);
  std::vector<double> lrs = base_lrs_;
  for (auto& lr : lrs) lr *= factor;
  return lrs;
}

void LinearLR::save_settings(c10::impl::GenericDict& state) const {
  state.insert("start_factor", start_factor_);
  state.insert("end_factor", end_factor_);
  state.insert("total_iters", total_iters_);
}

void LinearLR::load_settings(const c10::impl::GenericDict& state) {
  start_factor_ = number_at(state, "start_factor");
  end_factor_ = number_at(state, "end_factor");
  total_iters_ = static_cast<int64_t>(number_at(state, "total_iters"));
}

void LinearLR::check_extra_state(const c10::impl::GenericDict& state,
                                 const std::string& source) const {
  SchedulerStateReader reader(state, source, name());
  std::string problem = settings_problem(reader.number("start_factor"), reader.number("end_factor"),
                                         static_cast<int64_t>(reader.number("total_iters")));
  if (!problem.empty()) reader.fail(fmt::format("has settings LinearLR rejects: {}", problem));
}

}  // namespace fulgur
