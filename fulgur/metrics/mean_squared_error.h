#pragma once
// MeanSquaredError (torchmetrics'): the mean of (preds - target)^2 over every element seen;
// squared=false gives its square root (RMSE). States: ElementwiseMean's, the sum named
// "sum_squared_error".
#include "fulgur/metrics/elementwise_mean.h"

namespace fulgur::metrics {

struct MeanSquaredErrorOptions {
  bool squared = true;  // false: root mean squared error
};

class MeanSquaredError : public ElementwiseMean {
 public:
  explicit MeanSquaredError(MeanSquaredErrorOptions options = {});

 protected:
  at::Tensor compute_value() override;
  at::Tensor error(const at::Tensor& preds, const at::Tensor& target) const override;

 private:
  MeanSquaredErrorOptions options_;
};

}  // namespace fulgur::metrics
