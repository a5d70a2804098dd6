#pragma once
// ChainedScheduler (torch.optim.lr_scheduler.ChainedScheduler): steps each of its schedulers,
// in order, at every step(), so their effects compose on the same optimizer. With chainable
// schedulers the factors multiply:
//   auto warmup = std::make_shared<ConstantLR>(*opt, 0.1, 2);
//   auto decay = std::make_shared<ExponentialLR>(*opt, 0.9);
//   auto schedule = std::make_shared<ChainedScheduler>(
//       std::vector<std::shared_ptr<LRScheduler>>{warmup, decay});
// Only `schedule` goes into the SchedulerConfig; it holds the others. Its rates are the groups'
// rates once the last scheduler has stepped.
//
// state_dict() holds the schedulers' own states under `_schedulers`, as PyTorch's; PyTorch's
// ChainedScheduler keeps no period count of its own, so the base keys fulgur adds (last_epoch,
// base_lrs, _step_count) are extra to it, and a state saved by PyTorch lacks them.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class ChainedScheduler : public LRScheduler {
 public:
  // Raises ConfigError when there is no scheduler, one is null, drives another optimizer than
  // the first or needs a metric (PyTorch's ChainedScheduler steps them without one).
  explicit ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers);
  std::string name() const override { return "ChainedScheduler"; }
  const std::vector<std::shared_ptr<LRScheduler>>& schedulers() const { return schedulers_; }

 protected:
  // Steps every scheduler. When one throws, those stepped before it and the groups' options
  // (rates and momentum) are put back, so a failed step changes nothing.
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  void save_extra_state(c10::impl::GenericDict& state) const override;
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;
  void load_extra_state(const c10::impl::GenericDict& state) override;

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
};

}  // namespace fulgur
