#pragma once
// LambdaLR (torch.optim.lr_scheduler.LambdaLR): each param group's rate at period e is its base
// rate times lr_lambda(e), from period 0 (construction) on. The rates are set, not chained (as
// in PyTorch): anything else that changes them is overwritten at the next step.
//   auto warmup = std::make_shared<LambdaLR>(
//       *opt, [](int64_t e) { return std::min(1.0, static_cast<double>(e + 1) / 10); });
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/optim/lr_lambdas.h"
#include "fulgur/optim/lr_scheduler.h"

namespace fulgur {

class LambdaLR : public LRScheduler {
 public:
  // One function for every group, or one per group. Raises ConfigError for another count.
  LambdaLR(torch::optim::Optimizer& optimizer, std::vector<LrLambda> lr_lambdas);
  LambdaLR(torch::optim::Optimizer& optimizer, LrLambda lr_lambda);
  std::string name() const override { return "LambdaLR"; }

 protected:
  std::vector<double> compute_lrs(std::optional<double> metric) override;
  void save_extra_state(c10::impl::GenericDict& state) const override;
  void check_extra_state(const c10::impl::GenericDict& state,
                         const std::string& source) const override;

 private:
  std::vector<LrLambda> lr_lambdas_;
};

}  // namespace fulgur
