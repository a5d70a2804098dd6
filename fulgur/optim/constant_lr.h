#pragma once
// ConstantLR (torch.optim.lr_scheduler.ConstantLR): multiplies each param group's rate by
// `factor` from period 0 (construction) until period `total_iters`, where the rate returns to
// its base: a constant warm-up. The update is PyTorch's chainable one, so a rate changed by the
// user or another scheduler in between is kept and only the factor is taken off it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class ConstantLR : public LRScheduler {
 public:
  // Raises ConfigError unless 0 < factor <= 1 and total_iters >= 1.
  explicit ConstantLR(torch::optim::Optimizer& optimizer, double factor = 1.0 / 3,
                      int64_t total_iters = 5);
  std::string name() const override { return "ConstantLR"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  std::optional<std::vector<double>> closed_form_lrs() const override;
  void save_settings(c10::impl::GenericDict& state) const override;
  void load_settings(const c10::impl::GenericDict& state) override;
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;

 private:
  double factor_;
  int64_t total_iters_;
};

}  // namespace fulgur
