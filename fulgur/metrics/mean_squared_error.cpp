#include "fulgur/metrics/mean_squared_error.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

MeanSquaredError::MeanSquaredError(MeanSquaredErrorOptions options)
    : ElementwiseMean("MeanSquaredError", "sum_squared_error"), options_(options) {}

at::Tensor MeanSquaredError::error(const at::Tensor& preds, const at::Tensor& target) const {
  return (preds - target).square();
}

at::Tensor MeanSquaredError::compute_value() {
  const auto mse = ElementwiseMean::compute_value();
  return options_.squared ? mse : mse.sqrt();
}

}  // namespace fulgur::metrics
