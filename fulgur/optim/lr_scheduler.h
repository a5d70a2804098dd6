#pragma once
// Learning-rate schedulers with PyTorch's semantics: `step()` advances one period (an epoch or
// a step, as the scheduler config's `interval` says) and writes the new rates into the
// optimizer's param groups. Schedulers that monitor a metric receive it in `step(metric)`.
//
// As in torch.optim.lr_scheduler, construction counts as period 0: `last_epoch()` is 0,
// `get_last_lr()` holds the rates the param groups had (the base rates), and each `step()`
// increments `last_epoch()` before computing the new rates. The scheduler keeps a reference to
// the optimizer, which must outlive it.
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fulgur {

class LRScheduler {
 public:
  explicit LRScheduler(torch::optim::Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  virtual std::string name() const = 0;
  // True when step() needs a monitored metric (ReduceLROnPlateau).
  virtual bool needs_metric() const { return false; }

  // Raises ConfigError when needs_metric() and no metric is given.
  void step(std::optional<double> metric = std::nullopt);
  const std::vector<double>& get_last_lr() const { return last_lrs_; }
  int64_t last_epoch() const { return last_epoch_; }

 protected:
  // Rates for every param group at period `last_epoch()` (already advanced).
  virtual std::vector<double> compute_lrs(std::optional<double> metric) = 0;
  // The rates the param groups hold right now (PyTorch's chainable form builds on them).
  std::vector<double> current_lrs() const;

  torch::optim::Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  std::vector<double> last_lrs_;
  int64_t last_epoch_ = 0;
};

}  // namespace fulgur
