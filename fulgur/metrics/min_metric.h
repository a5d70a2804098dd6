#pragma once
// MinMetric (torchmetrics'): the smallest value passed to update(value); +inf when every value
// was left out. The NaN handling is BaseAggregator's.
#include "fulgur/metrics/base_aggregator.h"

namespace fulgur::metrics {

class MinMetric : public BaseAggregator {
 public:
  explicit MinMetric(AggregationOptions options = {});

 protected:
  void update_state(const at::Tensor& value, const at::Tensor& weight) override;
  at::Tensor aggregate() override;

 private:
  StateId min_value_;
};

}  // namespace fulgur::metrics
