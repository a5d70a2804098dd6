#pragma once
// PolynomialLR (torch.optim.lr_scheduler.PolynomialLR): decays each param group's rate to zero
// over `total_iters` periods along a polynomial of degree `power`, then keeps it there:
//   lr(e) = base * (1 - min(e, total_iters) / total_iters) ^ power.
// The update is PyTorch's chainable one (the ratio of consecutive factors), so a rate changed
// by the user or another scheduler in between decays from there on.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class PolynomialLR : public LRScheduler {
 public:
  // Raises ConfigError when total_iters < 1 or power < 0.
  explicit PolynomialLR(torch::optim::Optimizer& optimizer, int64_t total_iters = 5,
                        double power = 1.0);
  std::string name() const override { return "PolynomialLR"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  std::optional<std::vector<double>> closed_form_lrs() const override;
  void save_settings(c10::impl::GenericDict& state) const override;
  void load_settings(const c10::impl::GenericDict& state) override;
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;

 private:
  int64_t total_iters_;
  double power_;
};

}  // namespace fulgur
