#pragma once
// The momentum that OneCycleLR and CyclicLR cycle against the rate, wherever the optimizer
// keeps it: SGD's and RMSprop's `momentum`, Adam's and AdamW's first beta (torch >= 2.2 cycles
// betas too; 1.13 only `momentum`).
#include <torch/optim/optimizer.h>

namespace fulgur {

enum class MomentumKind { kNone, kMomentum, kBeta1 };

// From the optimizer's defaults, which every param group's options share the type of.
MomentumKind momentum_kind(const torch::optim::Optimizer& optimizer);
// Sets the group's momentum or first beta; no-op for an optimizer with neither.
void set_group_momentum(torch::optim::OptimizerParamGroup& group, double momentum);

}  // namespace fulgur
