#pragma once
// SymmetricMeanAbsolutePercentageError (torchmetrics'): the mean of
// 2 |preds - target| / (|preds| + |target|) over every element seen, as a fraction in [0, 2].
// A denominator below 1.17e-6 counts as 1.17e-6 (torchmetrics' guard), so preds = target = 0
// scores 0. States: ElementwiseMean's, the sum named "sum_abs_per_error".
#include "fulgur/metrics/elementwise_mean.h"

namespace fulgur::metrics {

class SymmetricMeanAbsolutePercentageError : public ElementwiseMean {
 public:
  SymmetricMeanAbsolutePercentageError();

 protected:
  at::Tensor error(const at::Tensor& preds, const at::Tensor& target) const override;
};

}  // namespace fulgur::metrics
