#include "fulgur/metrics/cat_metric.h"

#include <ATen/ATen.h>

#include <cmath>

namespace fulgur::metrics {

CatMetric::CatMetric(AggregationOptions options) : BaseAggregator("CatMetric", std::move(options)) {
  value_ =
      add_state("value", at::zeros({0}, at::TensorOptions().dtype(at::kDouble)), Reduction::Cat);
}

void CatMetric::update_state(const at::Tensor& value, const at::Tensor&) {
  // A left-out NaN stays NaN until compute(), which drops it without a per-update host read.
  append(value_, clean(value, NAN).first.reshape({-1}));
}

at::Tensor CatMetric::aggregate() {
  const auto values = cat_state(value_);
  return leaves_nan_out() ? values.masked_select(values.isnan().logical_not()) : values;
}

}  // namespace fulgur::metrics
