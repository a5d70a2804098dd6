#include "fulgur/metrics/mean_absolute_percentage_error.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

namespace {
constexpr double kSmallestTarget = 1.17e-06;  // torchmetrics' epsilon
}  // namespace

MeanAbsolutePercentageError::MeanAbsolutePercentageError() : Metric("MeanAbsolutePercentageError") {
  sum_abs_per_error_ = add_state(
      "sum_abs_per_error", at::zeros({}, at::TensorOptions().dtype(at::kDouble)), Reduction::Sum);
  total_ = add_state("total", at::zeros({}, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

void MeanAbsolutePercentageError::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = regression_pair(name(), preds, target);
  state(sum_abs_per_error_).add_(((p - t).abs() / t.abs().clamp_min(kSmallestTarget)).sum());
  state(total_).add_(p.numel());
}

at::Tensor MeanAbsolutePercentageError::compute_value() {
  return state(sum_abs_per_error_) / state(total_).to(at::kDouble);
}

}  // namespace fulgur::metrics
