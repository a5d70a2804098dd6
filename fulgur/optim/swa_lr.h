#pragma once
// SWALR (torch.optim.swa_utils.SWALR): anneals each param group's rate towards its swa_lr over
// `anneal_epochs` periods, cosine (`cos`, the default) or linear, then holds it: the schedule of
// stochastic weight averaging. Like PyTorch's it builds on the rate the group holds, so at step
// s (s = 1, 2, ...; anneal_epochs 0 counts as 1 and reaches swa_lr at construction)
//   alpha(t) = (1 - cos(pi t)) / 2 (cos) or t (linear),  t = clamp(s / max(1, anneal_epochs))
//   start    = (lr - alpha(t_prev) * swa_lr) / (1 - alpha(t_prev)), or swa_lr once alpha is 1
//   lr'      = swa_lr * alpha(t) + start * (1 - alpha(t))
//
// PyTorch keeps swa_lr in the optimizer's param groups and saves the anneal function itself;
// fulgur's state_dict holds `swa_lrs` and `anneal_strategy` instead (beside `anneal_epochs` and
// the counters), which Python's load_state_dict takes as plain attributes. Param groups added
// after construction keep their rates (PyTorch's get_lr raises a KeyError for them).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class SWALR : public LRScheduler {
 public:
  // One swa_lr for every group. Raises ConfigError for an anneal_strategy other than "cos" or
  // "linear", or anneal_epochs < 0.
  SWALR(torch::optim::Optimizer& optimizer, double swa_lr, int64_t anneal_epochs = 10,
        std::string anneal_strategy = "cos");
  // One swa_lr per group; also a ConfigError when their count is not the groups'.
  SWALR(torch::optim::Optimizer& optimizer, std::vector<double> swa_lrs, int64_t anneal_epochs = 10,
        std::string anneal_strategy = "cos");
  std::string name() const override { return "SWALR"; }

  const std::vector<double>& swa_lrs() const { return swa_lrs_; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  void save_settings(c10::impl::GenericDict& state) const override;
  void load_settings(const c10::impl::GenericDict& state) override;
  void save_extra_state(c10::impl::GenericDict& state) const override;
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;
  void load_extra_state(const c10::impl::GenericDict& state) override;

 private:
  double anneal(double t) const;

  std::vector<double> swa_lrs_;
  int64_t anneal_epochs_;
  std::string anneal_strategy_;
};

}  // namespace fulgur
