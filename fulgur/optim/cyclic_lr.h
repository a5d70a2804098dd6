#pragma once
// CyclicLR (torch.optim.lr_scheduler.CyclicLR): cycles each param group's rate between base_lr
// and max_lr, rising over step_size_up periods and falling over step_size_down (meant to be
// optimizer steps: use interval "step"). The amplitude is scaled by the mode's policy:
// "triangular" keeps it, "triangular2" halves it each cycle, "exp_range" multiplies it by
// gamma^period; a scale_fn given replaces the mode, evaluated on the cycle number (scale_mode
// "cycle", counting from 1) or on the period ("iterations").
//
// As in PyTorch, construction sets the groups' rates to base_lr, and cycle_momentum (on by
// default) moves the momentum the other way, from max_momentum at base_lr to base_momentum at
// max_lr: SGD's and RMSprop's `momentum`, Adam's and AdamW's first beta (as torch >= 2.2; 1.13
// cycles `momentum` only). SGD then runs with momentum even if it was built without; set
// cycle_momentum = false to leave the optimizer's momentum alone. The rates are set, not
// chained: anything else that changes them is overwritten at the next step.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/group_momentum.h"
#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

struct CyclicLROptions {
  int64_t step_size_up = 2000;
  std::optional<int64_t> step_size_down;  // step_size_up when unset
  std::string mode = "triangular";        // "triangular", "triangular2" or "exp_range"
  double gamma = 1.0;                     // exp_range's base
  // A custom amplitude policy with values in [0, 1]; replaces `mode`. Not saved in checkpoints
  // (PyTorch saves only a callable object's attributes): give it again when resuming.
  std::function<double(double)> scale_fn;
  std::string scale_mode = "cycle";  // what scale_fn is evaluated on: "cycle" or "iterations"
  bool cycle_momentum = true;
  double base_momentum = 0.8;  // the momentum at max_lr
  double max_momentum = 0.9;   // the momentum at base_lr
};

class CyclicLR : public LRScheduler {
 public:
  // One base_lr and max_lr per param group, or a single value for all of them. Raises
  // ConfigError for another count, step_size_up < 1, step_size_down < 0, an unknown mode (without
  // scale_fn) or scale_mode, or cycle_momentum with an optimizer that has no momentum.
  CyclicLR(torch::optim::Optimizer& optimizer, std::vector<double> base_lr,
           std::vector<double> max_lr, CyclicLROptions options = {});
  CyclicLR(torch::optim::Optimizer& optimizer, double base_lr, double max_lr,
           CyclicLROptions options = {});
  std::string name() const override { return "CyclicLR"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  void save_settings(c10::impl::GenericDict& state) const override;
  void load_settings(const c10::impl::GenericDict& state) override;
  // PyTorch's max_lrs, mode, scale_mode, cycle_momentum, base_momentums, max_momentums (with
  // cycle_momentum), use_beta1 (torch >= 2.2) and _scale_fn_custom (None).
  void save_extra_state(c10::impl::GenericDict& state) const override;
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;
  void load_extra_state(const c10::impl::GenericDict& state) override;

 private:
  // Everything load_extra_state restores, parsed once for the check and once for the load.
  struct Cycle {
    std::vector<double> max_lrs;
    std::string mode;
    std::string scale_mode;
    bool cycle_momentum = false;
    std::vector<double> base_momentums, max_momentums;
  };
  Cycle parse_cycle(const c10::impl::GenericDict& state, const std::string& source) const;
  double scale(double x) const;

  double total_size_;
  double step_ratio_;
  double gamma_;
  std::function<double(double)> scale_fn_;
  MomentumKind momentum_kind_;
  Cycle cycle_;
};

}  // namespace fulgur
