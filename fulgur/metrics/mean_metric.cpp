#include "fulgur/metrics/mean_metric.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

namespace {

const at::TensorOptions kDoubles = at::TensorOptions().dtype(at::kDouble);

}  // namespace

MeanMetric::MeanMetric(AggregationOptions options)
    : BaseAggregator("MeanMetric", std::move(options)) {
  mean_value_ = add_state("mean_value", at::zeros({}, kDoubles), Reduction::Sum);
  weight_ = add_state("weight", at::zeros({}, kDoubles), Reduction::Sum);
}

void MeanMetric::update_state(const at::Tensor& value, const at::Tensor& weight) {
  const auto [weighted_sum, weight_sum] = weighted_sums(value, weight);
  state(mean_value_).add_(weighted_sum);
  state(weight_).add_(weight_sum);
}

at::Tensor MeanMetric::aggregate() { return state(mean_value_) / state(weight_); }

}  // namespace fulgur::metrics
