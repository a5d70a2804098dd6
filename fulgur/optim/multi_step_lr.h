#pragma once
// MultiStepLR (torch.optim.lr_scheduler.MultiStepLR): multiplies each param group's rate by
// `gamma` when the period reaches a milestone (by gamma^k for a milestone listed k times), so
// at period e the rate is base * gamma^(milestones <= e) unless something else changed it in
// between (the update is PyTorch's chainable one). A milestone 0 decays at construction, as
// in PyTorch.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class MultiStepLR : public LRScheduler {
 public:
  // Raises ConfigError when the milestones are not in increasing order.
  MultiStepLR(torch::optim::Optimizer& optimizer, std::vector<int64_t> milestones,
              double gamma = 0.1);
  std::string name() const override { return "MultiStepLR"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  std::optional<std::vector<double>> closed_form_lrs() const override;
  void save_settings(c10::impl::GenericDict& state) const override;
  void load_settings(const c10::impl::GenericDict& state) override;
  // `milestones` as PyTorch keeps it: a Counter, saved as a dict {milestone: times listed}.
  void save_extra_state(c10::impl::GenericDict& state) const override;
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;
  void load_extra_state(const c10::impl::GenericDict& state) override;

 private:
  std::vector<int64_t> parse_milestones(const c10::impl::GenericDict& state,
                                        const std::string& source) const;

  std::vector<int64_t> milestones_;  // sorted; repeated as often as listed
  double gamma_;
};

}  // namespace fulgur
