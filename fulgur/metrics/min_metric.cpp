#include "fulgur/metrics/min_metric.h"

#include <ATen/ATen.h>

#include <limits>

namespace fulgur::metrics {

namespace {

const at::TensorOptions kDoubles = at::TensorOptions().dtype(at::kDouble);
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

MinMetric::MinMetric(AggregationOptions options) : BaseAggregator("MinMetric", std::move(options)) {
  min_value_ = add_state("min_value", at::full({}, kInf, kDoubles), Reduction::Min);
}

void MinMetric::update_state(const at::Tensor& value, const at::Tensor&) {
  const auto v = clean(value, kInf).first;
  if (v.numel() == 0) return;
  state(min_value_) = at::minimum(state(min_value_), v.min());
}

at::Tensor MinMetric::aggregate() { return state(min_value_).clone(); }

}  // namespace fulgur::metrics
