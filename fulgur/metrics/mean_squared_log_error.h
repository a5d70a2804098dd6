#pragma once
// MeanSquaredLogError (torchmetrics'): the mean of (log(1 + preds) - log(1 + target))^2 over
// every element seen, sklearn's mean_squared_log_error. A value at or below -1 has no
// log(1 + x): a MetricError (one host read per update), where torchmetrics would give NaN.
// States: ElementwiseMean's, the sum named "sum_squared_log_error".
#include "fulgur/metrics/elementwise_mean.h"

namespace fulgur::metrics {

class MeanSquaredLogError : public ElementwiseMean {
 public:
  MeanSquaredLogError();

 protected:
  at::Tensor error(const at::Tensor& preds, const at::Tensor& target) const override;
};

}  // namespace fulgur::metrics
