#include "fulgur/metrics/symmetric_mean_absolute_percentage_error.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

namespace {
constexpr double kSmallestScale = 1.17e-06;  // torchmetrics' epsilon
}  // namespace

SymmetricMeanAbsolutePercentageError::SymmetricMeanAbsolutePercentageError()
    : ElementwiseMean("SymmetricMeanAbsolutePercentageError", "sum_abs_per_error") {}

at::Tensor SymmetricMeanAbsolutePercentageError::error(const at::Tensor& preds,
                                                       const at::Tensor& target) const {
  return 2 * (preds - target).abs() / (preds.abs() + target.abs()).clamp_min(kSmallestScale);
}

}  // namespace fulgur::metrics
