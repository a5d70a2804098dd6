#include "fulgur/optim/group_momentum.h"

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

namespace fulgur {

MomentumKind momentum_kind(const torch::optim::Optimizer& optimizer) {
  const auto* defaults = &optimizer.defaults();
  if (dynamic_cast<const torch::optim::SGDOptions*>(defaults) != nullptr ||
      dynamic_cast<const torch::optim::RMSpropOptions*>(defaults) != nullptr) {
    return MomentumKind::kMomentum;
  }
  if (dynamic_cast<const torch::optim::AdamOptions*>(defaults) != nullptr ||
      dynamic_cast<const torch::optim::AdamWOptions*>(defaults) != nullptr) {
    return MomentumKind::kBeta1;
  }
  return MomentumKind::kNone;
}

void set_group_momentum(torch::optim::OptimizerParamGroup& group, double momentum) {
  auto& options = group.options();
  if (auto* sgd = dynamic_cast<torch::optim::SGDOptions*>(&options)) {
    sgd->momentum(momentum);
  } else if (auto* rmsprop = dynamic_cast<torch::optim::RMSpropOptions*>(&options)) {
    rmsprop->momentum(momentum);
  } else if (auto* adam = dynamic_cast<torch::optim::AdamOptions*>(&options)) {
    adam->betas({momentum, std::get<1>(adam->betas())});
  } else if (auto* adamw = dynamic_cast<torch::optim::AdamWOptions*>(&options)) {
    adamw->betas({momentum, std::get<1>(adamw->betas())});
  }
}

}  // namespace fulgur
