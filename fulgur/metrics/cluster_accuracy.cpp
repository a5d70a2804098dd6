#include "fulgur/metrics/cluster_accuracy.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <optional>

#include "fulgur/errors.h"
#include "fulgur/metrics/classification_inputs.h"
#include "fulgur/metrics/clustering_inputs.h"
#include "fulgur/metrics/linear_assignment.h"

namespace fulgur::metrics {

ClusterAccuracy::ClusterAccuracy(ClusterAccuracyOptions options)
    : Metric("ClusterAccuracy"), options_(options) {
  if (options_.num_classes < 1) {
    throw ConfigError(fmt::format("ClusterAccuracy(num_classes={}) must be a positive integer",
                                  options_.num_classes));
  }
  const int64_t c = options_.num_classes;
  confmat_ =
      add_state("confmat", at::zeros({c, c}, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

void ClusterAccuracy::update_state(const at::Tensor& preds, const at::Tensor& target) {
  check_cluster_labels(name(), preds, target);
  const int64_t c = options_.num_classes;
  const auto batch =
      format_multiclass(name(), preds, target, c, std::nullopt, options_.validate_args);
  state(confmat_).view({-1}).index_add_(0, batch.target * c + batch.preds.to(at::kLong), batch.valid);
}

at::Tensor ClusterAccuracy::compute_value() {
  const auto confmat = state(confmat_).to(at::kDouble);
  const double total = confmat.sum().item<double>();
  if (total == 0) fail("has no samples to score (every update was empty)");
  const auto columns = max_weight_assignment(confmat);
  const auto matched = confmat.gather(
      1,
      at::tensor(columns, at::TensorOptions().dtype(at::kLong)).to(confmat.device()).unsqueeze(1));
  return matched.sum() / total;
}

}  // namespace fulgur::metrics
