#pragma once
// ExponentialLR (torch.optim.lr_scheduler.ExponentialLR): multiplies each param group's rate
// by `gamma` every period, so at period e the rate is base * gamma^e unless something else
// changed it in between (the update is PyTorch's chainable one).
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(torch::optim::Optimizer& optimizer, double gamma);
  std::string name() const override { return "ExponentialLR"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  std::optional<std::vector<double>> closed_form_lrs() const override;
  void save_settings(c10::impl::GenericDict& state) const override;
  void load_settings(const c10::impl::GenericDict& state) override;

 private:
  double gamma_;
};

}  // namespace fulgur
