#pragma once
// SumMetric (torchmetrics'): the sum of every value passed to update(value). The NaN handling
// is BaseAggregator's.
#include "fulgur/metrics/base_aggregator.h"

namespace fulgur::metrics {

class SumMetric : public BaseAggregator {
 public:
  explicit SumMetric(AggregationOptions options = {});

 protected:
  void update_state(const at::Tensor& value, const at::Tensor& weight) override;
  at::Tensor aggregate() override;

 private:
  StateId sum_value_;
};

}  // namespace fulgur::metrics
