#include "fulgur/metrics/weighted_mean_absolute_percentage_error.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

WeightedMeanAbsolutePercentageError::WeightedMeanAbsolutePercentageError()
    : Metric("WeightedMeanAbsolutePercentageError") {
  const auto sum = at::zeros({}, at::TensorOptions().dtype(at::kDouble));
  abs_error_ = add_state("sum_abs_error", sum, Reduction::Sum);
  scale_ = add_state("sum_scale", sum, Reduction::Sum);
}

void WeightedMeanAbsolutePercentageError::update_state(const at::Tensor& preds,
                                                       const at::Tensor& target) {
  const auto [p, t] = regression_pair(name(), preds, target);
  state(abs_error_).add_((p - t).abs().sum());
  state(scale_).add_(t.abs().sum());
}

at::Tensor WeightedMeanAbsolutePercentageError::compute_value() {
  return state(abs_error_) / state(scale_).clamp_min(kSmallestDenominator);
}

}  // namespace fulgur::metrics
