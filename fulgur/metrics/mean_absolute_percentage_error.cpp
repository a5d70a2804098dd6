#include "fulgur/metrics/mean_absolute_percentage_error.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

namespace {
constexpr double kSmallestTarget = 1.17e-06;  // torchmetrics' epsilon
}  // namespace

MeanAbsolutePercentageError::MeanAbsolutePercentageError()
    : ElementwiseMean("MeanAbsolutePercentageError", "sum_abs_per_error") {}

at::Tensor MeanAbsolutePercentageError::error(const at::Tensor& preds,
                                              const at::Tensor& target) const {
  return (preds - target).abs() / target.abs().clamp_min(kSmallestTarget);
}

}  // namespace fulgur::metrics
