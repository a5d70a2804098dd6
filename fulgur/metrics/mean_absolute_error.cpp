#include "fulgur/metrics/mean_absolute_error.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

MeanAbsoluteError::MeanAbsoluteError() : Metric("MeanAbsoluteError") {
  sum_abs_error_ = add_state("sum_abs_error", at::zeros({}, at::TensorOptions().dtype(at::kDouble)),
                             Reduction::Sum);
  total_ = add_state("total", at::zeros({}, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

void MeanAbsoluteError::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = regression_pair(name(), preds, target);
  state(sum_abs_error_).add_((p - t).abs().sum());
  state(total_).add_(p.numel());
}

at::Tensor MeanAbsoluteError::compute_value() {
  return state(sum_abs_error_) / state(total_).to(at::kDouble);
}

}  // namespace fulgur::metrics
