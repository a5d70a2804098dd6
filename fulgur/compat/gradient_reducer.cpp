#include "fulgur/compat/gradient_reducer.h"

#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/reducer.hpp>

#include <algorithm>
#include <exception>
#include <type_traits>
#include <unordered_map>

#include "fulgur/compat/process_group.h"
#include "fulgur/errors.h"

namespace fulgur::compat {
namespace {

// PyTorch's DDP: the first bucket is small so that communication starts early in backward.
constexpr int64_t kFirstBucketBytes = int64_t{1} << 20;

using Names = std::unordered_map<size_t, std::string>;
using Group = c10::intrusive_ptr<c10d::ProcessGroup>;

// The Reducer's constructor changed across LibTorch releases: 1.13 takes each bucket's size
// limit; 2.x dropped them and added skip_all_reduce_unused_params and use_python_reducer, later
// also a per-bucket cap list. A template, so that only the signature this LibTorch has is
// compiled.
template <typename R = c10d::Reducer>
std::shared_ptr<R> make_reducer(std::vector<at::Tensor> params,
                                std::vector<std::vector<size_t>> buckets,
                                const std::vector<size_t>& limits, const Group& group,
                                std::vector<bool> sparse, int64_t cap, bool find_unused,
                                Names names) {
  using Params = std::vector<at::Tensor>;
  using Buckets = std::vector<std::vector<size_t>>;
  using Sparse = std::vector<bool>;
  constexpr bool as_view = false;  // gradient_as_bucket_view
  if constexpr (std::is_constructible_v<R, Params, Buckets, const std::vector<size_t>&, Group,
                                        Sparse, int64_t, bool, bool, Names, int64_t>) {
    return std::make_shared<R>(std::move(params), std::move(buckets), limits, group,
                               std::move(sparse), cap, find_unused, as_view, std::move(names),
                               kFirstBucketBytes);
  } else if constexpr (std::is_constructible_v<R, Params, Buckets, Group, Sparse, int64_t, bool,
                                               bool, Names, int64_t, bool, bool>) {
    return std::make_shared<R>(std::move(params), std::move(buckets), group, std::move(sparse),
                               cap, find_unused, as_view, std::move(names), kFirstBucketBytes,
                               /*skip_all_reduce_unused_params=*/false,
                               /*use_python_reducer=*/false);
  } else {
    return std::make_shared<R>(std::move(params), std::move(buckets), group, std::move(sparse),
                               cap, find_unused, as_view, std::move(names), kFirstBucketBytes,
                               /*skip_all_reduce_unused_params=*/false,
                               /*use_python_reducer=*/false,
                               /*bucket_bytes_cap_list=*/std::vector<int64_t>{});
  }
}

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
  Names param_names;
  for (size_t i = 0; i < names.size(); ++i) param_names[i] = names[i];
  reducer_ = make_reducer(std::move(parameters), std::move(buckets), limits, group.handle(),
                          expect_sparse, options.bucket_cap_bytes,
                          options.find_unused_parameters, std::move(param_names));
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
