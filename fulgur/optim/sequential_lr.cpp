#include "fulgur/optim/sequential_lr.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "fulgur/errors.h"
#include "fulgur/optim/nested_schedulers.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {

SequentialLR::SequentialLR(torch::optim::Optimizer& optimizer,
                           std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones)
    : LRScheduler(optimizer),
      schedulers_(std::move(schedulers)),
      milestones_(std::move(milestones)) {
  if (schedulers_.empty()) {
    throw ConfigError("SequentialLR: schedulers is empty; give at least one scheduler");
  }
  check_nested_schedulers(name(), schedulers_, optimizer,
                          "build every scheduler on the optimizer given to SequentialLR");
  if (milestones_.size() + 1 != schedulers_.size()) {
    throw ConfigError(fmt::format(
        "SequentialLR(milestones=[{}]): {} schedulers need {} milestones (the periods at which "
        "each scheduler after the first takes over), got {}",
        fmt::join(milestones_, ", "), schedulers_.size(), schedulers_.size() - 1,
        milestones_.size()));
  }
  if (!std::is_sorted(milestones_.begin(), milestones_.end())) {
    throw ConfigError(fmt::format(
        "SequentialLR(milestones=[{}]): milestones must be in increasing order (the periods at "
        "which each scheduler after the first takes over)",
        fmt::join(milestones_, ", ")));
  }

  // PyTorch's constructor: back to the initial rates, every scheduler one period back, then the
  // first one's construction step again.
  const std::vector<double> initial = schedulers_[0]->base_lrs_;
  auto& groups = optimizer.param_groups();
  for (size_t g = 0; g < groups.size() && g < initial.size(); ++g) {
    groups[g].options().set_lr(initial[g]);
  }
  for (const auto& scheduler : schedulers_) {
    scheduler->base_lrs_ = initial;
    --scheduler->last_epoch_;
  }
  LRScheduler& first = *schedulers_[0];
  first.step_count_ = 0;
  first.step();
  base_lrs_ = initial;
  last_lrs_ = first.get_last_lr();
}

std::vector<double> SequentialLR::compute_lrs(std::optional<double> /*metric*/) {
  const size_t index =
      std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  LRScheduler& scheduler = *schedulers_[index];
  if (index > 0 && milestones_[index - 1] == last_epoch_) {
    scheduler.restart();
  } else {
    scheduler.step();
  }
  return scheduler.get_last_lr();
}

void SequentialLR::save_extra_state(c10::impl::GenericDict& state) const {
  c10::List<int64_t> milestones;
  for (int64_t m : milestones_) milestones.push_back(m);
  state.insert("_milestones", milestones);
  save_nested_states(state, schedulers_);
}

std::vector<int64_t> SequentialLR::parse_milestones(const c10::impl::GenericDict& state,
                                                    const std::string& source) const {
  SchedulerStateReader reader(state, source, name());
  std::vector<int64_t> milestones = reader.integers("_milestones");
  if (milestones.size() + 1 != schedulers_.size()) {
    reader.fail(
        fmt::format("has {} milestones for {} schedulers", milestones.size(), schedulers_.size()));
  }
  if (!std::is_sorted(milestones.begin(), milestones.end())) {
    reader.fail("has milestones that are not in increasing order");
  }
  check_nested_states(reader, schedulers_);
  return milestones;
}

void SequentialLR::check_extra_state(const c10::impl::GenericDict& state,
                                     const std::string& source) const {
  parse_milestones(state, source);
}

void SequentialLR::load_extra_state(const c10::impl::GenericDict& state) {
  milestones_ = parse_milestones(state, "");
  load_nested_states(state, schedulers_);
}

}  // namespace fulgur
