#pragma once
// SequentialLR (torch.optim.lr_scheduler.SequentialLR): runs its schedulers one after the
// other on the same optimizer; scheduler i + 1 takes over at period milestones[i], restarting
// from its own period 0 (its closed form there, as PyTorch's step(0)). A typical warm-up:
//   auto warmup = std::make_shared<LinearLR>(*opt, 0.1, 1.0, 5);
//   auto decay = std::make_shared<CosineAnnealingLR>(*opt, 95);
//   auto schedule = std::make_shared<SequentialLR>(*opt, {warmup, decay}, {5});
// Only `schedule` goes into the SchedulerConfig; it holds the others.
//
// As PyTorch's, construction rewinds every scheduler by one period, resets the groups to their
// initial rates and re-runs the first scheduler's period 0. PyTorch takes the initial rates from
// the groups' `initial_lr`, set by the first scheduler created on the optimizer; LibTorch's
// groups have no such key, so SequentialLR takes the first scheduler's base rates and gives
// them to all. That is PyTorch's result when the schedulers were created in order on a fresh
// optimizer (the usual way), except after a OneCycleLR that is not the first, which in PyTorch
// overwrites initial_lr for the schedulers created after it.
//
// state_dict() holds the schedulers' own states under `_schedulers` and `_milestones`.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class SequentialLR : public LRScheduler {
 public:
  // Raises ConfigError when there is no scheduler, one is null, built on another optimizer or
  // needs a metric (PyTorch's SequentialLR cannot pass one on either), or when the milestones
  // are not one fewer than the schedulers or not in increasing order.
  SequentialLR(torch::optim::Optimizer& optimizer,
               std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones);
  std::string name() const override { return "SequentialLR"; }
  const std::vector<std::shared_ptr<LRScheduler>>& schedulers() const { return schedulers_; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  void save_extra_state(c10::impl::GenericDict& state) const override;
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;
  void load_extra_state(const c10::impl::GenericDict& state) override;

 private:
  std::vector<int64_t> parse_milestones(const c10::impl::GenericDict& state,
                                        const std::string& source) const;

  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

}  // namespace fulgur
