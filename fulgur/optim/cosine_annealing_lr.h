#pragma once
// CosineAnnealingLR (torch.optim.lr_scheduler.CosineAnnealingLR): anneals each param group's
// rate from its base rate to `eta_min` along half a cosine over `T_max` periods, then back up
// over the next T_max, and so on:
//   lr(e) = eta_min + (base - eta_min) * (1 + cos(pi * e / T_max)) / 2.
// The update is PyTorch's recursive (chainable) one, computed from the rate the group holds,
// so the rates match torch 1.13's to the last bit and a rate changed by the user or another
// scheduler is annealed from there on rather than overwritten.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class CosineAnnealingLR : public LRScheduler {
 public:
  // Raises ConfigError when T_max < 1.
  CosineAnnealingLR(torch::optim::Optimizer& optimizer, int64_t T_max, double eta_min = 0.0);
  std::string name() const override { return "CosineAnnealingLR"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  std::optional<std::vector<double>> closed_form_lrs() const override;
  void save_settings(c10::impl::GenericDict& state) const override;
  void load_settings(const c10::impl::GenericDict& state) override;
  // A saved T_max below 1 would divide by zero.
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;

 private:
  int64_t t_max_;
  double eta_min_;
};

}  // namespace fulgur
