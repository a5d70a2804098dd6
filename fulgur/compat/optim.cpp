#include "fulgur/compat/optim.h"

#include <torch/version.h>

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

}  // namespace fulgur::compat
