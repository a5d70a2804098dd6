#include "fulgur/optim/cosine_annealing_warm_restarts.h"

#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "fulgur/errors.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {
namespace {

// What is wrong with these settings, or "" when nothing is (PyTorch's two checks).
std::string settings_problem(int64_t t_0, int64_t t_mult) {
  if (t_0 < 1) {
    return fmt::format("T_0 must be at least 1 (the length of the first cycle), got {}", t_0);
  }
  if (t_mult < 1) {
    return fmt::format("T_mult must be at least 1 (how much longer each cycle is), got {}", t_mult);
  }
  return "";
}

}  // namespace

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(torch::optim::Optimizer& optimizer,
                                                         int64_t T_0, int64_t T_mult,
                                                         double eta_min)
    : LRScheduler(optimizer), t_0_(T_0), t_mult_(T_mult), eta_min_(eta_min) {
  if (std::string problem = settings_problem(T_0, T_mult); !problem.empty()) {
    throw ConfigError(
        fmt::format("CosineAnnealingWarmRestarts(T_0={}, T_mult={}): {}", T_0, T_mult, problem));
  }
  initial_step();
}

CosineAnnealingWarmRestarts::CyclePosition CosineAnnealingWarmRestarts::position() const {
  // PyTorch's step() moves T_cur on by one and restarts when it reaches T_i; walking whole
  // cycles from period 0 lands where that would, exactly (integers, no logarithm). Cycles of
  // one length are skipped at once; growing ones are few.
  if (t_mult_ == 1) return {t_0_, last_epoch_ % t_0_};
  CyclePosition at{t_0_, last_epoch_};
  while (at.t_cur >= at.t_i) {
    at.t_cur -= at.t_i;
    at.t_i *= t_mult_;
  }
  return at;
}

std::vector<double> CosineAnnealingWarmRestarts::compute_lrs(std::optional<double> /*metric*/) {
  return *closed_form_lrs();
}

std::optional<std::vector<double>> CosineAnnealingWarmRestarts::closed_form_lrs() const {
  const CyclePosition at = position();
  const double angle =
      std::numbers::pi * static_cast<double>(at.t_cur) / static_cast<double>(at.t_i);
  std::vector<double> lrs = base_lrs_;
  for (auto& lr : lrs) lr = eta_min_ + (lr - eta_min_) * (1 + std::cos(angle)) / 2;
  return lrs;
}

void CosineAnnealingWarmRestarts::save_settings(c10::impl::GenericDict& state) const {
  state.insert("T_0", t_0_);
  state.insert("T_mult", t_mult_);
  state.insert("eta_min", eta_min_);
}

void CosineAnnealingWarmRestarts::load_settings(const c10::impl::GenericDict& state) {
  t_0_ = static_cast<int64_t>(number_at(state, "T_0"));
  t_mult_ = static_cast<int64_t>(number_at(state, "T_mult"));
  eta_min_ = number_at(state, "eta_min");
}

void CosineAnnealingWarmRestarts::save_extra_state(c10::impl::GenericDict& state) const {
  const CyclePosition at = position();
  state.insert("T_i", at.t_i);
  state.insert("T_cur", at.t_cur);
}

void CosineAnnealingWarmRestarts::check_extra_state(const c10::impl::GenericDict& state,
                                                    const std::string& source) const {
  SchedulerStateReader reader(state, source, name());
  std::string problem = settings_problem(static_cast<int64_t>(reader.number("T_0")),
                                         static_cast<int64_t>(reader.number("T_mult")));
  if (!problem.empty()) {
    reader.fail(fmt::format("has settings CosineAnnealingWarmRestarts rejects: {}", problem));
  }
}

}  // namespace fulgur
