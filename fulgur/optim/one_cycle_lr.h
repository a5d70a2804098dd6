#pragma once
// OneCycleLR (torch.optim.lr_scheduler.OneCycleLR): the 1cycle policy. Over `total_steps`
// periods (meant to be optimizer steps: use interval "step") each param group's rate rises
// from max_lr / div_factor to max_lr during the first pct_start of the cycle, then falls to
// max_lr / div_factor / final_div_factor (three_phase: back to the start rate first, then down).
// The rates are set, not chained: anything else that changes them is overwritten.
//
// cycle_momentum (on by default, as in PyTorch) moves the momentum the other way, between
// max_momentum and base_momentum: SGD's and RMSprop's `momentum`, Adam's and AdamW's first
// beta. Note that SGD then runs with momentum even if it was built without; set
// cycle_momentum = false to leave the optimizer's momentum alone. Unlike PyTorch, the momentum
// bounds are one value for every group.
//
// step() may be called total_steps times (PyTorch's limit); one more is a ConfigError.
// PyTorch's epochs/steps_per_epoch form: pass their product as total_steps.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/group_momentum.h"
#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

struct OneCycleLROptions {
  double pct_start = 0.3;               // the fraction of the cycle spent raising the rate
  std::string anneal_strategy = "cos";  // "cos" or "linear"
  bool cycle_momentum = true;
  double base_momentum = 0.85;    // the momentum at the peak rate
  double max_momentum = 0.95;     // the momentum at the start and end of the cycle
  double div_factor = 25.0;       // start rate = max_lr / div_factor
  double final_div_factor = 1e4;  // final rate = start rate / final_div_factor
  bool three_phase = false;
};

class OneCycleLR : public LRScheduler {
 public:
  // Raises ConfigError for total_steps < 1, pct_start outside [0, 1], an unknown
  // anneal_strategy, or cycle_momentum with an optimizer that has no momentum.
  OneCycleLR(torch::optim::Optimizer& optimizer, double max_lr, int64_t total_steps,
             OneCycleLROptions options = {});
  // One max_lr per param group (or a single one for all of them).
  OneCycleLR(torch::optim::Optimizer& optimizer, std::vector<double> max_lrs, int64_t total_steps,
             OneCycleLROptions options = {});
  std::string name() const override { return "OneCycleLR"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  void save_settings(c10::impl::GenericDict& state) const override;
  void load_settings(const c10::impl::GenericDict& state) override;
  // PyTorch's _schedule_phases, cycle_momentum, use_beta1 and _anneal_func_type (torch >= 2.1's
  // name; 1.13 pickles the bound method anneal_func instead). The per-group bounds PyTorch
  // keeps in the param groups (max_lr, min_lr, max_momentum, base_momentum; initial_lr is
  // base_lrs) go under max_lrs, min_lrs, max_momentums and base_momentums: LibTorch's groups
  // have no room for them.
  void save_extra_state(c10::impl::GenericDict& state) const override;
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;
  void load_extra_state(const c10::impl::GenericDict& state) override;

 private:
  // The per-group values a phase starts and ends at, named as PyTorch's param group keys.
  enum class Bound { kInitialLr, kMaxLr, kMinLr, kMaxMomentum, kBaseMomentum };
  static constexpr std::array<const char*, 5> kBoundNames = {"initial_lr", "max_lr", "min_lr",
                                                             "max_momentum", "base_momentum"};
  struct Phase {
    double end_step;
    Bound start_lr, end_lr, start_momentum, end_momentum;
  };
  // Everything load_extra_state restores, parsed once for the check and once for the load.
  struct Schedule {
    std::vector<Phase> phases;
    std::string anneal_strategy;
    bool cycle_momentum = false;
    std::vector<double> max_lrs, min_lrs, max_momentums, base_momentums;
  };

  Schedule parse_schedule(const c10::impl::GenericDict& state, const std::string& source) const;
  double bound(size_t group, Bound which) const;
  double anneal(double start, double end, double pct) const;

  int64_t total_steps_;
  MomentumKind momentum_kind_;
  Schedule schedule_;
};

}  // namespace fulgur
