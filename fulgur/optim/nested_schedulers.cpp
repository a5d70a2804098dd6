#include "fulgur/optim/nested_schedulers.h"

#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {

void check_nested_schedulers(const std::string& owner,
                             const std::vector<std::shared_ptr<LRScheduler>>& schedulers,
                             const torch::optim::Optimizer& optimizer, const std::string& remedy) {
  for (size_t i = 0; i < schedulers.size(); ++i) {
    const auto& scheduler = schedulers[i];
    if (!scheduler) throw ConfigError(fmt::format("{}: schedulers[{}] is null", owner, i));
    if (&scheduler->optimizer() != &optimizer) {
      throw ConfigError(fmt::format("{}: schedulers[{}] ({}) drives another optimizer; {}", owner,
                                    i, scheduler->name(), remedy));
    }
    if (scheduler->needs_metric()) {
      throw ConfigError(fmt::format(
          "{0}: schedulers[{1}] ({2}) needs a monitored metric, which {0} does not pass on "
          "(neither does PyTorch's); use it as a scheduler of its own",
          owner, i, scheduler->name()));
    }
  }
}

void save_nested_states(c10::impl::GenericDict& state,
                        const std::vector<std::shared_ptr<LRScheduler>>& schedulers) {
  c10::impl::GenericList states(c10::AnyType::get());
  for (const auto& scheduler : schedulers) states.push_back(scheduler->state_dict());
  state.insert("_schedulers", states);
}

void check_nested_states(const SchedulerStateReader& reader,
                         const std::vector<std::shared_ptr<LRScheduler>>& schedulers) {
  const c10::impl::GenericList states = reader.list("_schedulers");
  if (states.size() != schedulers.size()) {
    reader.fail(fmt::format("holds {} schedulers, not {}", states.size(), schedulers.size()));
  }
  for (size_t i = 0; i < states.size(); ++i) {
    const c10::IValue child = states.get(i);
    if (!child.isGenericDict()) {
      reader.fail(fmt::format("has a scheduler {} that is not a dict", i));
    }
    schedulers[i]->check_state_dict(child.toGenericDict(), reader.source());
  }
}

void load_nested_states(const c10::impl::GenericDict& state,
                        const std::vector<std::shared_ptr<LRScheduler>>& schedulers) {
  const c10::impl::GenericList states = state.at("_schedulers").toList();
  for (size_t i = 0; i < schedulers.size(); ++i) {
    schedulers[i]->load_state_dict(states.get(i).toGenericDict(), "");
  }
}

}  // namespace fulgur
