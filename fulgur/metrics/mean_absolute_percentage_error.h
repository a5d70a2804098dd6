#pragma once
// MeanAbsolutePercentageError (torchmetrics'): the mean of |preds - target| / |target| over
// every element seen, as a fraction (0.25 is 25%). A |target| below 1.17e-6 counts as
// 1.17e-6, torchmetrics' guard against dividing by zero (sklearn guards with float64's epsilon
// instead, so the two differ only on such targets). States: ElementwiseMean's, the sum named
// "sum_abs_per_error".
#include "fulgur/metrics/elementwise_mean.h"

namespace fulgur::metrics {

class MeanAbsolutePercentageError : public ElementwiseMean {
 public:
  MeanAbsolutePercentageError();

 protected:
  at::Tensor error(const at::Tensor& preds, const at::Tensor& target) const override;
};

}  // namespace fulgur::metrics
