#include "fulgur/optim/lambda_lr.h"

#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {

LambdaLR::LambdaLR(torch::optim::Optimizer& optimizer, std::vector<LrLambda> lr_lambdas)
    : LRScheduler(optimizer),
      lr_lambdas_(lr_lambdas_per_group("LambdaLR", std::move(lr_lambdas),
                                       optimizer.param_groups().size())) {
  initial_step();
}

LambdaLR::LambdaLR(torch::optim::Optimizer& optimizer, LrLambda lr_lambda)
    : LambdaLR(optimizer, std::vector<LrLambda>{std::move(lr_lambda)}) {}

std::vector<double> LambdaLR::compute_lrs(std::optional<double> /*metric*/) {
  std::vector<double> lrs = base_lrs_;
  for (size_t i = 0; i < lrs.size(); ++i) lrs[i] *= lr_lambdas_[i](last_epoch_);
  return lrs;
}

void LambdaLR::save_extra_state(c10::impl::GenericDict& state) const {
  save_lr_lambdas(state, lr_lambdas_.size());
}

void LambdaLR::check_extra_state(const c10::impl::GenericDict& state,
                                 const std::string& source) const {
  check_lr_lambdas(SchedulerStateReader(state, source, name()), lr_lambdas_.size());
}

}  // namespace fulgur
