#pragma once
// Stand-in for a header Debian's libtorch-dev (1.13) does not ship but c10d/reducer.hpp
// includes. The Reducer only needs these two types, declared as upstream declares them (so its
// object layout matches the library's): ContextPtr, a shared_ptr held in a member, and
// GradCallback, named in a static_assert. Nothing constructs a DistAutogradContext through it.
// Used only where the real header is missing (see CMakeLists.txt).
#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>

namespace torch::distributed::autograd {

class DistAutogradContext {
 public:
  using GradCallback = std::function<bool(at::Tensor&)>;
  DistAutogradContext() = delete;
};
using ContextPtr = std::shared_ptr<DistAutogradContext>;

}  // namespace torch::distributed::autograd
