#include "fulgur/metrics/sum_metric.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

namespace {

const at::TensorOptions kDoubles = at::TensorOptions().dtype(at::kDouble);

}  // namespace

SumMetric::SumMetric(AggregationOptions options) : BaseAggregator("SumMetric", std::move(options)) {
  sum_value_ = add_state("sum_value", at::zeros({}, kDoubles), Reduction::Sum);
}

void SumMetric::update_state(const at::Tensor& value, const at::Tensor&) {
  state(sum_value_).add_(clean(value, 0.0).first.sum());
}

at::Tensor SumMetric::aggregate() { return state(sum_value_).clone(); }

}  // namespace fulgur::metrics
