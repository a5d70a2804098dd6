#include "fulgur/metrics/symmetric_mean_absolute_percentage_error.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

SymmetricMeanAbsolutePercentageError::SymmetricMeanAbsolutePercentageError()
    : ElementwiseMean("SymmetricMeanAbsolutePercentageError", "sum_abs_per_error") {}

at::Tensor SymmetricMeanAbsolutePercentageError::error(const at::Tensor& preds,
                                                       const at::Tensor& target) const {
  return 2 * (preds - target).abs() / (preds.abs() + target.abs()).clamp_min(kSmallestDenominator);
}

}  // namespace fulgur::metrics
