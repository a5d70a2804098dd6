#include "fulgur/optim/constant_lr.h"

#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {
namespace {

// What is wrong with these settings, or "" when nothing is. torch 1.13 accepts factor 0, then
// divides by it at period total_iters; total_iters 0 makes its two forms disagree.
std::string settings_problem(double factor, int64_t total_iters) {
  if (!(factor > 0.0 && factor <= 1.0)) {
    return fmt::format(
        "factor must be in (0, 1] (it multiplies the rate until total_iters), got {}", factor);
  }
  if (total_iters < 1) {
    return fmt::format(
        "total_iters must be at least 1 (the period at which the rate returns to its base), got "
        "{}",
        total_iters);
  }
  return "";
}

}  // namespace

ConstantLR::ConstantLR(torch::optim::Optimizer& optimizer, double factor, int64_t total_iters)
    : LRScheduler(optimizer), factor_(factor), total_iters_(total_iters) {
  if (std::string problem = settings_problem(factor, total_iters); !problem.empty()) {
    throw ConfigError(
        fmt::format("ConstantLR(factor={}, total_iters={}): {}", factor, total_iters, problem));
  }
  initial_step();
}

std::vector<double> ConstantLR::compute_lrs(std::optional<double> /*metric*/) {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0) {
    for (auto& lr : lrs) lr *= factor_;
  } else if (last_epoch_ == total_iters_) {
    // PyTorch's order of operations: the rate times the factor's reciprocal.
    for (auto& lr : lrs) lr *= 1.0 / factor_;
  }
  return lrs;
}

std::optional<std::vector<double>> ConstantLR::closed_form_lrs() const {
  const double factor = last_epoch_ >= total_iters_ ? factor_ + (1 - factor_) : factor_;
  std::vector<double> lrs = base_lrs_;
  for (auto& lr : lrs) lr *= factor;
  return lrs;
}

void ConstantLR::save_settings(c10::impl::GenericDict& state) const {
  state.insert("factor", factor_);
  state.insert("total_iters", total_iters_);
}

void ConstantLR::load_settings(const c10::impl::GenericDict& state) {
  factor_ = number_at(state, "factor");
  total_iters_ = static_cast<int64_t>(number_at(state, "total_iters"));
}

void ConstantLR::check_extra_state(const c10::impl::GenericDict& state,
                                   const std::string& source) const {
  SchedulerStateReader reader(state, source, name());
  std::string problem =
      settings_problem(reader.number("factor"), static_cast<int64_t>(reader.number("total_iters")));
  if (!problem.empty()) reader.fail(fmt::format("has settings ConstantLR rejects: {}", problem));
}

}  // namespace fulgur
