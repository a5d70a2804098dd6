#include "fulgur/optim/chained_scheduler.h"

#include "fulgur/errors.h"
#include "fulgur/optim/nested_schedulers.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {
namespace {

// The optimizer every scheduler must drive: the first one's.
torch::optim::Optimizer& first_optimizer(
    const std::vector<std::shared_ptr<LRScheduler>>& schedulers) {
  if (schedulers.empty()) {
    throw ConfigError("ChainedScheduler: schedulers is empty; give at least one scheduler");
  }
  if (!schedulers[0]) throw ConfigError("ChainedScheduler: schedulers[0] is null");
  return schedulers[0]->optimizer();
}

}  // namespace

ChainedScheduler::ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers)
    : LRScheduler(first_optimizer(schedulers)), schedulers_(std::move(schedulers)) {
  check_nested_schedulers(name(), schedulers_, optimizer_, "chain schedulers of one optimizer");
}

std::vector<double> ChainedScheduler::compute_lrs(std::optional<double> /*metric*/) {
  // What a scheduler failing midway would leave changed: the states of those before it and
  // the groups' options they set.
  std::vector<c10::impl::GenericDict> states;
  states.reserve(schedulers_.size());
  for (const auto& scheduler : schedulers_) states.push_back(scheduler->state_dict());
  auto& groups = optimizer_.param_groups();
  std::vector<std::unique_ptr<torch::optim::OptimizerOptions>> options;
  options.reserve(groups.size());
  for (auto& group : groups) options.push_back(group.options().clone());

  size_t stepped = 0;
  try {
    for (; stepped < schedulers_.size(); ++stepped) schedulers_[stepped]->step();
  } catch (...) {
    for (size_t i = 0; i < stepped; ++i) schedulers_[i]->load_state_dict(states[i], "");
    for (size_t g = 0; g < groups.size(); ++g) groups[g].set_options(std::move(options[g]));
    throw;
  }
  return current_lrs();
}

void ChainedScheduler::save_extra_state(c10::impl::GenericDict& state) const {
  save_nested_states(state, schedulers_);
}

void ChainedScheduler::check_extra_state(const c10::impl::GenericDict& state,
                                         const std::string& source) const {
  check_nested_states(SchedulerStateReader(state, source, name()), schedulers_);
}

void ChainedScheduler::load_extra_state(const c10::impl::GenericDict& state) {
  load_nested_states(state, schedulers_);
}

}  // namespace fulgur
