#pragma once
// CosineAnnealingWarmRestarts (torch.optim.lr_scheduler.CosineAnnealingWarmRestarts, SGDR):
// anneals each param group's rate from its base rate to `eta_min` along half a cosine over
// T_i periods, then restarts at the base rate; T_0 is the first cycle's length and each next
// cycle is T_mult times longer:
//   lr(e) = eta_min + (base - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2,
// T_cur being the periods since the last restart. The rates are set, not chained (as in
// PyTorch): anything else that changes them is overwritten at the next step. Periods are whole:
// PyTorch's step(epoch + i / iters) for fractional epochs has no counterpart here.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  // Raises ConfigError when T_0 < 1 or T_mult < 1.
  CosineAnnealingWarmRestarts(torch::optim::Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1,
                              double eta_min = 0.0);
  std::string name() const override { return "CosineAnnealingWarmRestarts"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  std::optional<std::vector<double>> closed_form_lrs() const override;
  void save_settings(c10::impl::GenericDict& state) const override;
  void load_settings(const c10::impl::GenericDict& state) override;
  // PyTorch's T_i and T_cur, the position in the current cycle.
  void save_extra_state(c10::impl::GenericDict& state) const override;
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;

 private:
  struct CyclePosition {
    int64_t t_i;    // this cycle's length
    int64_t t_cur;  // periods since its start
  };
  // Where period last_epoch() falls: a function of it alone, so a failed step, a loaded state
  // or SequentialLR's restart at period 0 leave nothing behind to rewind.
  CyclePosition position() const;

  int64_t t_0_;
  int64_t t_mult_;
  double eta_min_;
};

}  // namespace fulgur
