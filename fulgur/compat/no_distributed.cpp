// The distributed face for a build configured with FULGUR_DISTRIBUTED=OFF, for a LibTorch whose
// c10d fulgur does not build against (compiled instead of process_group.cpp and
// gradient_reducer.cpp): joining a process group is a DistributedError that says so, and
// everything else in fulgur works.
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <fmt/format.h>

#include "fulgur/compat/gradient_reducer.h"
#include "fulgur/compat/process_group.h"
#include "fulgur/errors.h"

namespace fulgur::compat {

ProcessGroup::ProcessGroup(const ProcessGroupOptions& options) : options_(options) {
  throw DistributedError(fmt::format(
      "rank {} of {}: this fulgur was built with FULGUR_DISTRIBUTED=OFF, without c10d; "
      "strategy \"ddp\" needs a build with it",
      options.rank, options.world_size));
}

ProcessGroup::~ProcessGroup() = default;

void ProcessGroup::fail(const std::string& operation, const std::exception& error) const {
  throw DistributedError(fmt::format("{} failed: {}", operation, error.what()));
}

void ProcessGroup::all_reduce(at::Tensor&, CollectiveOp) {}
std::vector<at::Tensor> ProcessGroup::all_gather(const at::Tensor& tensor) { return {tensor}; }
void ProcessGroup::broadcast(at::Tensor&, int) {}
void ProcessGroup::barrier() {}

GradientReducer::GradientReducer(std::vector<at::Tensor>, const std::vector<std::string>&,
                                 ProcessGroup& group, const GradientReducerOptions& options)
    : options_(options), rank_(group.rank()) {}

GradientReducer::~GradientReducer() = default;
void GradientReducer::prepare_for_forward() {}
void GradientReducer::prepare_for_backward(const at::Tensor&) {}

}  // namespace fulgur::compat
