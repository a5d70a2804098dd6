#pragma once
// StepLR (torch.optim.lr_scheduler.StepLR): multiplies each param group's rate by `gamma`
// every `step_size` periods, so at period e the rate is base * gamma^(e / step_size) unless
// something else changed it in between (the update is PyTorch's chainable one).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class StepLR : public LRScheduler {
 public:
  // Raises ConfigError when step_size < 1.
  StepLR(torch::optim::Optimizer& optimizer, int64_t step_size, double gamma = 0.1);
  std::string name() const override { return "StepLR"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  std::optional<std::vector<double>> closed_form_lrs() const override;
  void save_settings(c10::impl::GenericDict& state) const override;
  void load_settings(const c10::impl::GenericDict& state) override;
  // A saved step_size below 1 would divide by zero.
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;

 private:
  int64_t step_size_;
  double gamma_;
};

}  // namespace fulgur
