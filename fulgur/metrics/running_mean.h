#pragma once
// RunningMean (torchmetrics'): the weighted mean of the values passed to the last `window`
// update(value, weight) calls; NaN when their weights sum to 0. See RunningAggregator.
#include "fulgur/metrics/running_aggregator.h"

namespace fulgur::metrics {

class RunningMean : public RunningAggregator {
 public:
  explicit RunningMean(const RunningOptions& options = {});

 protected:
  // weight: broadcastable to value's shape (undefined: 1 each).
  void update_state(const at::Tensor& value, const at::Tensor& weight) override;
  at::Tensor aggregate() override;

 private:
  StateId mean_value_, weight_;
};

}  // namespace fulgur::metrics
