#pragma once
// LinearLR (torch.optim.lr_scheduler.LinearLR): scales each param group's rate by a factor
// that goes linearly from `start_factor` at period 0 (construction) to `end_factor` at period
// `total_iters`, then stays; a warm-up when start_factor < end_factor. At period e the rate is
//   base * (start + (end - start) * min(e, total_iters) / total_iters)
// unless something else changed it in between (the update is PyTorch's chainable one).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class LinearLR : public LRScheduler {
 public:
  // Raises ConfigError unless 0 < start_factor <= 1, 0 <= end_factor <= 1 and total_iters >= 1.
  explicit LinearLR(torch::optim::Optimizer& optimizer, double start_factor = 1.0 / 3,
                    double end_factor = 1.0, int64_t total_iters = 5);
  std::string name() const override { return "LinearLR"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  std::optional<std::vector<double>> closed_form_lrs() const override;
  void save_settings(c10::impl::GenericDict& state) const override;
  void load_settings(const c10::impl::GenericDict& state) override;
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;

 private:
  double start_factor_;
  double end_factor_;
  int64_t total_iters_;
};

}  // namespace fulgur
