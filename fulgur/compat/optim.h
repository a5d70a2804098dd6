#pragma once
// Optimizer calls whose signature differs between LibTorch 1.13 and 2.x. LibTorch 1.13's
// Optimizer::zero_grad() takes no argument and zeroes the gradients; 2.x takes `set_to_none`
// and, called without it, drops them. LibTorch 1.13 keys an optimizer's per-parameter state by
// the parameter's TensorImpl address printed as a string, 2.x by the address itself.
// Everything outside fulgur/compat/ goes through here.
#include <torch/optim/optimizer.h>

#include <type_traits>

namespace fulgur::compat {

// set_to_none=true leaves every gradient undefined (the next backward allocates it afresh);
// false keeps the tensors and fills them with zeros, on every LibTorch.
void zero_grad(torch::optim::Optimizer& optimizer, bool set_to_none);

using OptimizerStateMap =
    std::remove_cvref_t<decltype(std::declval<torch::optim::Optimizer&>().state())>;
// The key of `param`'s entry in Optimizer::state().
OptimizerStateMap::key_type optimizer_state_key(const torch::Tensor& param);

}  // namespace fulgur::compat
