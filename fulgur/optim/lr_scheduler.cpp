#include "fulgur/optim/lr_scheduler.h"

#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur {

LRScheduler::LRScheduler(torch::optim::Optimizer& optimizer) : optimizer_(optimizer) {
  base_lrs_ = current_lrs();
  last_lrs_ = base_lrs_;
}

std::vector<double> LRScheduler::current_lrs() const {
  std::vector<double> lrs;
  lrs.reserve(optimizer_.param_groups().size());
  for (const auto& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

void LRScheduler::step(std::optional<double> metric) {
  if (needs_metric() && !metric) {
    throw ConfigError(fmt::format(
        "{}.step() needs the value of the monitored metric and got none; set `monitor` in "
        "the scheduler config to a metric you log, or call step(metric)",
        name()));
  }
  ++last_epoch_;
  std::vector<double> lrs = compute_lrs(metric);
  auto& groups = optimizer_.param_groups();
  if (lrs.size() != groups.size()) {
    --last_epoch_;
    throw ConfigError(fmt::format(
        "{} computed {} learning rates for an optimizer with {} param groups; param groups "
        "must not be added after the scheduler is created",
        name(), lrs.size(), groups.size()));
  }
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
  last_lrs_ = std::move(lrs);
}

}  // namespace fulgur
