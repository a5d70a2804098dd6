#pragma once
// What SequentialLR and ChainedScheduler share about the schedulers they hold: the checks at
// construction and the `_schedulers` list of their states, as PyTorch saves it.
#include <ATen/core/Dict.h>

#include <memory>
#include <string>
#include <vector>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class SchedulerStateReader;

// Raises ConfigError, naming `owner`, when a scheduler is null, drives another optimizer than
// `optimizer` (`remedy` says what to do instead) or needs a metric, which neither owner passes
// on (as in PyTorch).
void check_nested_schedulers(const std::string& owner,
                             const std::vector<std::shared_ptr<LRScheduler>>& schedulers,
                             const torch::optim::Optimizer& optimizer, const std::string& remedy);

void save_nested_states(c10::impl::GenericDict& state,
                        const std::vector<std::shared_ptr<LRScheduler>>& schedulers);
// Fails through `reader` unless "_schedulers" holds one state per scheduler that it accepts.
void check_nested_states(const SchedulerStateReader& reader,
                         const std::vector<std::shared_ptr<LRScheduler>>& schedulers);
// Loads a state that check_nested_states accepted.
void load_nested_states(const c10::impl::GenericDict& state,
                        const std::vector<std::shared_ptr<LRScheduler>>& schedulers);

}  // namespace fulgur
