#include "fulgur/metrics/mean_absolute_percentage_error.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

MeanAbsolutePercentageError::MeanAbsolutePercentageError()
    : ElementwiseMean("MeanAbsolutePercentageError", "sum_abs_per_error") {}

at::Tensor MeanAbsolutePercentageError::error(const at::Tensor& preds,
                                              const at::Tensor& target) const {
  return (preds - target).abs() / target.abs().clamp_min(kSmallestDenominator);
}

}  // namespace fulgur::metrics
