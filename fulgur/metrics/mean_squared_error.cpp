#include "fulgur/metrics/mean_squared_error.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

MeanSquaredError::MeanSquaredError(MeanSquaredErrorOptions options)
    : Metric("MeanSquaredError"), options_(options) {
  sum_squared_error_ = add_state(
      "sum_squared_error", at::zeros({}, at::TensorOptions().dtype(at::kDouble)), Reduction::Sum);
  total_ = add_state("total", at::zeros({}, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

void MeanSquaredError::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = regression_pair(name(), preds, target);
  state(sum_squared_error_).add_((p - t).square().sum());
  state(total_).add_(p.numel());
}

at::Tensor MeanSquaredError::compute_value() {
  const auto mse = state(sum_squared_error_) / state(total_).to(at::kDouble);
  return options_.squared ? mse : mse.sqrt();
}

}  // namespace fulgur::metrics
