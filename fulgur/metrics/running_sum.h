#pragma once
// RunningSum (torchmetrics'): the sum of the values passed to the last `window` update(value)
// calls. See RunningAggregator.
#include "fulgur/metrics/running_aggregator.h"

namespace fulgur::metrics {

class RunningSum : public RunningAggregator {
 public:
  explicit RunningSum(const RunningOptions& options = {});

 protected:
  void update_state(const at::Tensor& value, const at::Tensor& weight) override;
  at::Tensor aggregate() override;

 private:
  StateId sum_value_;
};

}  // namespace fulgur::metrics
