#include "fulgur/optim/multiplicative_lr.h"

#include "fulgur/optim/scheduler_state_reader.h"

namespace fulgur {

MultiplicativeLR::MultiplicativeLR(torch::optim::Optimizer& optimizer,
                                   std::vector<LrLambda> lr_lambdas)
    : LRScheduler(optimizer),
      lr_lambdas_(lr_lambdas_per_group("MultiplicativeLR", std::move(lr_lambdas),
                                       optimizer.param_groups().size())) {}

MultiplicativeLR::MultiplicativeLR(torch::optim::Optimizer& optimizer, LrLambda lr_lambda)
    : MultiplicativeLR(optimizer, std::vector<LrLambda>{std::move(lr_lambda)}) {}

std::vector<double> MultiplicativeLR::compute_lrs(std::optional<double> /*metric*/) {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0) return lrs;
  // PyTorch's zip: groups added after construction have no function and keep their rates.
  if (lrs.size() > lr_lambdas_.size()) lrs.resize(lr_lambdas_.size());
  for (size_t i = 0; i < lrs.size(); ++i) lrs[i] *= lr_lambdas_[i](last_epoch_);
  return lrs;
}

void MultiplicativeLR::save_extra_state(c10::impl::GenericDict& state) const {
  save_lr_lambdas(state, lr_lambdas_.size());
}

void MultiplicativeLR::check_extra_state(const c10::impl::GenericDict& state,
                                         const std::string& source) const {
  check_lr_lambdas(SchedulerStateReader(state, source, name()), lr_lambdas_.size());
}

}  // namespace fulgur
