#pragma once
// MeanAbsoluteError (torchmetrics'): the mean of |preds - target| over every element seen.
// States: ElementwiseMean's, the sum named "sum_abs_error".
#include "fulgur/metrics/elementwise_mean.h"

namespace fulgur::metrics {

class MeanAbsoluteError : public ElementwiseMean {
 public:
  MeanAbsoluteError();

 protected:
  at::Tensor error(const at::Tensor& preds, const at::Tensor& target) const override;
};

}  // namespace fulgur::metrics
