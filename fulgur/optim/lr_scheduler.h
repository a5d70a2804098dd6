#pragma once
// Learning-rate schedulers with PyTorch's semantics: `step()` advances one period (an epoch or
// a step, as the scheduler config's `interval` says) and writes the new rates into the
// optimizer's param groups. Schedulers that monitor a metric receive it in `step(metric)`.
//
// As in torch.optim.lr_scheduler, construction counts as period 0: `last_epoch()` is 0,
// `get_last_lr()` holds the rates the param groups had (the base rates), and each `step()`
// increments `last_epoch()` before computing the new rates. The scheduler keeps a reference to
// the optimizer, which must outlive it.
//
// state_dict() uses torch.optim.lr_scheduler's names (base_lrs, last_epoch, _step_count,
// _last_lr and the scheduler's own settings), so checkpoints read like Lightning's.
#include <ATen/core/Dict.h>
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

  c10::impl::GenericDict state_dict() const;
  // Raises CheckpointError naming `source` when `state` is not this scheduler's (checked before
  // anything changes). The optimizer's rates are not touched: they come with its own state.
  void load_state_dict(const c10::impl::GenericDict& state, const std::string& source);
  // The checks of load_state_dict alone.
  void check_state_dict(const c10::impl::GenericDict& state, const std::string& source) const;

 protected:
  // The scheduler's own settings, under PyTorch's attribute names (StepLR: step_size, gamma).
  virtual void save_settings(c10::impl::GenericDict& state) const { (void)state; }
  // `state` was checked to hold every key save_settings writes, with numbers as values.
  virtual void load_settings(const c10::impl::GenericDict& state) { (void)state; }

  // Rates for every param group at period `last_epoch()` (already advanced).
  virtual std::vector<double> compute_lrs(std::optional<double> metric) = 0;
  // The rates the param groups hold right now (PyTorch's chainable form builds on them).
  std::vector<double> current_lrs() const;

  torch::optim::Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  std::vector<double> last_lrs_;
  int64_t last_epoch_ = 0;
  // step() calls, counting construction as the first (PyTorch's _step_count).
  int64_t step_count_ = 1;

 private:
  struct SavedState {
    int64_t last_epoch = 0;
    int64_t step_count = 0;
    std::vector<double> base_lrs;
    std::vector<double> last_lrs;
  };
  SavedState parse_state(const c10::impl::GenericDict& state, const std::string& source) const;
};

}  // namespace fulgur
