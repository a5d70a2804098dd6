#pragma once
// Learning-rate schedulers with PyTorch's semantics: `step()` advances one period (an epoch or
// a step, as the scheduler config's `interval` says) and writes the new rates into the
// optimizer's param groups. Schedulers that monitor a metric receive it in `step(metric)`.
//
// As in torch.optim.lr_scheduler, construction counts as period 0: `last_epoch()` is 0,
// `get_last_lr()` holds the rates of period 0 (the groups' rates, unless the scheduler starts
// elsewhere, as LinearLR and OneCycleLR do), and each `step()` increments `last_epoch()` before
// computing the new rates. A step() that throws leaves last_epoch() and the rates as they were.
// The scheduler keeps a reference to the optimizer, which must outlive it. Param groups may be
// added to the optimizer after the scheduler is made, as in PyTorch: chainable schedulers
// (StepLR, ExponentialLR, ...) then adjust them too, closed forms only the groups in base_lrs.
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
  torch::optim::Optimizer& optimizer() const { return optimizer_; }

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
  // What is not a number (strings, lists, child schedulers) or not a setting (counters), also
  // under PyTorch's names. check_extra_state raises CheckpointError naming `source` (see
  // SchedulerStateReader), also for saved settings out of range, and runs before anything is
  // loaded; load_extra_state runs only on a state that passed it.
  virtual void save_extra_state(c10::impl::GenericDict& state) const { (void)state; }
  virtual void check_extra_state(const c10::impl::GenericDict& state,
                                 const std::string& source) const {
    (void)state, (void)source;
  }
  virtual void load_extra_state(const c10::impl::GenericDict& state) { (void)state; }

  // Rates for every param group at period `last_epoch()` (already advanced).
  virtual std::vector<double> compute_lrs(std::optional<double> metric) = 0;
  // PyTorch's _get_closed_form_lr: the rates at `last_epoch()` from base_lrs_ alone, for
  // schedulers that have one. SequentialLR uses it when it hands over to the next scheduler.
  virtual std::optional<std::vector<double>> closed_form_lrs() const { return std::nullopt; }
  // The rates the param groups hold right now (PyTorch's chainable form builds on them).
  std::vector<double> current_lrs() const;
  // PyTorch's construction step, for schedulers whose period 0 is not simply the groups' rates:
  // applies compute_lrs at period 0. Call it last in the constructor (compute_lrs is virtual).
  void initial_step();

  // A number that check_state_dict has already found at `key`.
  static double number_at(const c10::impl::GenericDict& state, const char* key);

  torch::optim::Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  std::vector<double> last_lrs_;
  int64_t last_epoch_ = 0;
  // step() calls, counting construction as the first (PyTorch's _step_count).
  int64_t step_count_ = 1;

 private:
  // SequentialLR rewinds, rebases and restarts the schedulers it holds, as PyTorch's does.
  friend class SequentialLR;

  struct SavedState {
    int64_t last_epoch = 0;
    int64_t step_count = 0;
    std::vector<double> base_lrs;
    std::vector<double> last_lrs;
  };
  SavedState parse_state(const c10::impl::GenericDict& state, const std::string& source) const;
  // Writes `lrs` into the first groups, as PyTorch's zip: groups added after the scheduler was
  // made (by a finetuning callback) keep their rates where a closed form computes rates from
  // base_lrs_ alone. last_lrs_ then holds every group's rate. Raises ConfigError (changing
  // nothing) for more rates than groups.
  void apply_lrs(std::vector<double> lrs);
  // PyTorch's deprecated step(0): period 0 again, with the closed form when there is one.
  void restart();
};

}  // namespace fulgur
