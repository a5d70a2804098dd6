#include "fulgur/metrics/mean_absolute_error.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

MeanAbsoluteError::MeanAbsoluteError() : ElementwiseMean("MeanAbsoluteError", "sum_abs_error") {}

at::Tensor MeanAbsoluteError::error(const at::Tensor& preds, const at::Tensor& target) const {
  return (preds - target).abs();
}

}  // namespace fulgur::metrics
