#include "fulgur/metrics/mean_squared_log_error.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

namespace fulgur::metrics {

MeanSquaredLogError::MeanSquaredLogError()
    : ElementwiseMean("MeanSquaredLogError", "sum_squared_log_error") {}

at::Tensor MeanSquaredLogError::error(const at::Tensor& preds, const at::Tensor& target) const {
  if (preds.numel() > 0) {
    const double lowest = at::minimum(preds.min(), target.min()).item<double>();
    if (!(lowest > -1)) {
      fail(fmt::format("preds and target must be greater than -1 (log(1 + x)), got {}", lowest));
    }
  }
  return (preds.log1p() - target.log1p()).square();
}

}  // namespace fulgur::metrics
