#include "fulgur/metrics/max_metric.h"

#include <ATen/ATen.h>

#include <limits>

namespace fulgur::metrics {

namespace {

const at::TensorOptions kDoubles = at::TensorOptions().dtype(at::kDouble);
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

MaxMetric::MaxMetric(AggregationOptions options) : BaseAggregator("MaxMetric", std::move(options)) {
  max_value_ = add_state("max_value", at::full({}, -kInf, kDoubles), Reduction::Max);
}

void MaxMetric::update_state(const at::Tensor& value, const at::Tensor&) {
  const auto v = clean(value, -kInf).first;
  if (v.numel() == 0) return;
  // at::maximum propagates NaN, which "disable" asks for.
  state(max_value_) = at::maximum(state(max_value_), v.max());
}

at::Tensor MaxMetric::aggregate() { return state(max_value_).clone(); }

}  // namespace fulgur::metrics
