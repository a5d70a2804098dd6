#pragma once
// CatMetric (torchmetrics'): every value passed to update(value), flattened and joined in
// order into one 1-D float64 tensor; across processes the ranks' values one after another
// (rank 0's first), also when the ranks hold different numbers of values. A cat state, so
// memory grows with the values. NaN values follow AggregationOptions::nan_strategy (left out
// at compute(), so no update reads from the device; "warn" also warns there).
#include "fulgur/metrics/base_aggregator.h"

namespace fulgur::metrics {

class CatMetric : public BaseAggregator {
 public:
  // Raises ConfigError for an unknown nan_strategy.
  explicit CatMetric(AggregationOptions options = {});
  bool is_scalar() const override { return false; }

 protected:
  void update_state(const at::Tensor& value, const at::Tensor& weight) override;
  at::Tensor aggregate() override;

 private:
  StateId value_;
};

}  // namespace fulgur::metrics
