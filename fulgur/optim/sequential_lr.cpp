#include "fulgur/optim/sequential_lr.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "fulgur/errors.h"
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
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    const auto& scheduler = schedulers_[i];
    if (!scheduler) throw ConfigError(fmt::format("SequentialLR: schedulers[{}] is null", i));
    if (&scheduler->optimizer_ != &optimizer) {
      throw ConfigError(fmt::format(
          "SequentialLR: schedulers[{}] ({}) drives another optimizer; build every scheduler on "
          "the optimizer given to SequentialLR",
          i, scheduler->name()));
    }
    if (scheduler->needs_metric()) {
      throw ConfigError(fmt::format(
          "SequentialLR: schedulers[{}] ({}) needs a monitored metric, which SequentialLR does "
          "not pass on (neither does PyTorch's); use it as a scheduler of its own",
          i, scheduler->name()));
    }
  }
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
  c10::impl::GenericList states(c10::AnyType::get());
  for (const auto& scheduler : schedulers_) states.push_back(scheduler->state_dict());
  state.insert("_schedulers", states);
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
  const c10::impl::GenericList states = reader.list("_schedulers");
  if (states.size() != schedulers_.size()) {
    reader.fail(fmt::format("holds {} schedulers, not {}", states.size(), schedulers_.size()));
  }
  for (size_t i = 0; i < states.size(); ++i) {
    const c10::IValue child = states.get(i);
    if (!child.isGenericDict())
      reader.fail(fmt::format("has a scheduler {} that is not a dict", i));
    schedulers_[i]->check_state_dict(child.toGenericDict(), source);
  }
  return milestones;
}

void SequentialLR::check_extra_state(const c10::impl::GenericDict& state,
                                     const std::string& source) const {
  parse_milestones(state, source);
}

void SequentialLR::load_extra_state(const c10::impl::GenericDict& state) {
  milestones_ = parse_milestones(state, "");
  const c10::impl::GenericList states = state.at("_schedulers").toList();
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    schedulers_[i]->load_state_dict(states.get(i).toGenericDict(), "");
  }
}

}  // namespace fulgur
