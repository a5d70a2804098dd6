#pragma once
// MultiplicativeLR (torch.optim.lr_scheduler.MultiplicativeLR): each step multiplies each param
// group's rate by lr_lambda(e), e being the new period; period 0 (construction) keeps the
// groups' rates. The update is chainable: a rate changed by the user or another scheduler in
// between is multiplied from there on.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_lambdas.h"
#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class MultiplicativeLR : public LRScheduler {
 public:
  // One function for every group, or one per group. Raises ConfigError for another count.
  MultiplicativeLR(torch::optim::Optimizer& optimizer, std::vector<LrLambda> lr_lambdas);
  MultiplicativeLR(torch::optim::Optimizer& optimizer, LrLambda lr_lambda);
  std::string name() const override { return "MultiplicativeLR"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  void save_extra_state(c10::impl::GenericDict& state) const override;
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;

 private:
  std::vector<LrLambda> lr_lambdas_;
};

}  // namespace fulgur
