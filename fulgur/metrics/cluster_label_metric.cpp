#include "fulgur/metrics/cluster_label_metric.h"

#include <ATen/ATen.h>

#include <utility>

#include "fulgur/metrics/clustering_inputs.h"

namespace fulgur::metrics {

ClusterLabelMetric::ClusterLabelMetric(std::string name) : Metric(std::move(name)) {
  const auto labels = at::zeros({0}, at::TensorOptions().dtype(at::kLong));
  preds_ = add_state("preds", labels, Reduction::Cat);
  target_ = add_state("target", labels, Reduction::Cat);
}

void ClusterLabelMetric::update_state(const at::Tensor& preds, const at::Tensor& target) {
  check_cluster_labels(name(), preds, target);
  append(preds_, preds.detach());
  append(target_, target.detach());
}

at::Tensor ClusterLabelMetric::compute_value() {
  const auto preds = cat_state(preds_);
  if (preds.numel() == 0) fail("has no samples to score (every update was empty)");
  const double value = score(contingency_matrix(preds, cat_state(target_)));
  return at::scalar_tensor(value, at::TensorOptions().dtype(at::kDouble).device(preds.device()));
}

}  // namespace fulgur::metrics
