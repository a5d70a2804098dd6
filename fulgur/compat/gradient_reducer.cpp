#include "fulgur/compat/gradient_reducer.h"

#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/reducer.hpp>

#include <algorithm>
#include <exception>
#include <unordered_map>

#include "fulgur/compat/process_group.h"
#include "fulgur/errors.h"

namespace fulgur::compat {
namespace {

// PyTorch's DDP: the first bucket is small so that communication starts early in backward.
constexpr int64_t kFirstBucketBytes = int64_t{1} << 20;

}  // namespace

GradientReducer::GradientReducer(std::vector<at::Tensor> parameters,
                                 const std::vector<std::string>& names, ProcessGroup& group,
                                 const GradientReducerOptions& options)
    : options_(options), rank_(group.rank()) {
  const std::vector<bool> expect_sparse(parameters.size(), false);
  auto [buckets, limits] = c10d::compute_bucket_assignment_by_size(
      parameters,
      {static_cast<size_t>(kFirstBucketBytes), static_cast<size_t>(options.bucket_cap_bytes)},
      expect_sparse);
  // Gradients arrive in roughly reverse order of registration: the last bucket first.
  std::reverse(buckets.begin(), buckets.end());
  std::reverse(limits.begin(), limits.end());
  std::unordered_map<size_t, std::string> param_names;
  for (size_t i = 0; i < names.size(); ++i) param_names[i] = names[i];
  reducer_ = std::make_shared<c10d::Reducer>(
      std::move(parameters), std::move(buckets), std::move(limits), group.handle(),
      expect_sparse, options.bucket_cap_bytes, options.find_unused_parameters,
      /*gradient_as_bucket_view=*/false, std::move(param_names), kFirstBucketBytes);
}

GradientReducer::~GradientReducer() = default;

void GradientReducer::prepare_for_forward() {
  try {
    // Also where c10d notices that the last synchronised backward did not reduce everything.
    reducer_->rebuild_buckets();
    reducer_->prepare_for_forward();
  } catch (const std::exception& e) {
    throw DistributedError(fmt::format(
        "rank {}: gradient synchronisation failed: {}. If some parameters do not contribute to "
        "the loss, use strategy=\"ddp_find_unused_parameters_true\"",
        rank_, e.what()));
  }
}

void GradientReducer::prepare_for_backward(const at::Tensor& output) {
  // With find_unused_parameters the reducer walks the graph from the outputs to find the
  // parameters that will get no gradient; without it, it expects all of them.
  reducer_->prepare_for_backward(options_.find_unused_parameters
                                     ? std::vector<at::Tensor>{output}
                                     : std::vector<at::Tensor>{});
}

}  // namespace fulgur::compat
