#pragma once
// MeanMetric (torchmetrics'): the weighted mean of every value passed to update(value, weight);
// NaN when the weights sum to 0. The NaN handling is BaseAggregator's.
#include "fulgur/metrics/base_aggregator.h"

namespace fulgur::metrics {

class MeanMetric : public BaseAggregator {
 public:
  explicit MeanMetric(AggregationOptions options = {});

 protected:
  // weight: broadcastable to value's shape (undefined: 1 each).
  void update_state(const at::Tensor& value, const at::Tensor& weight) override;
  at::Tensor aggregate() override;

 private:
  StateId mean_value_, weight_;
};

}  // namespace fulgur::metrics
