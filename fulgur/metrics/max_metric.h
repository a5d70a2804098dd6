#pragma once
// MaxMetric (torchmetrics'): the largest value passed to update(value); -inf when every value was
// left out. The NaN handling is BaseAggregator's.
#include "fulgur/metrics/base_aggregator.h"

namespace fulgur::metrics {

class MaxMetric : public BaseAggregator {
 public:
  explicit MaxMetric(AggregationOptions options = {});

 protected:
  void update_state(const at::Tensor& value, const at::Tensor& weight) override;
  at::Tensor aggregate() override;

 private:
  StateId max_value_;
};

}  // namespace fulgur::metrics
