#include "fulgur/compat/optim.h"

#include <torch/version.h>

#include <sstream>

namespace fulgur::compat {

void zero_grad(torch::optim::Optimizer& optimizer, bool set_to_none) {
#if TORCH_VERSION_MAJOR >= 2
  optimizer.zero_grad(set_to_none);
#else
  if (!set_to_none) {
    optimizer.zero_grad();
    return;
  }
  for (auto& group : optimizer.param_groups()) {
    for (auto& param : group.params()) {
      // As Python's `p.grad = None`: drop the reference, leave the tensor to other holders.
      param.mutable_grad().reset();
    }
  }
#endif
}

namespace {

// A template, so that only the branch for this LibTorch's key type is compiled.
template <typename Key>
Key state_key_of(void* impl) {
  if constexpr (std::is_same_v<Key, std::string>) {
    // LibTorch's own spelling (c10::guts::to_string of the pointer).
    std::ostringstream key;
    key << impl;
    return key.str();
  } else {
    return impl;
  }
}

}  // namespace

OptimizerStateMap::key_type optimizer_state_key(const torch::Tensor& param) {
  return state_key_of<OptimizerStateMap::key_type>(param.unsafeGetTensorImpl());
}

}  // namespace fulgur::compat
