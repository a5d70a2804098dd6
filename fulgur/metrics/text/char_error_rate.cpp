#include "fulgur/metrics/text/char_error_rate.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

CharErrorRate::CharErrorRate() : ErrorRateMetric("CharErrorRate", Unit::Characters) {}

at::Tensor CharErrorRate::rate(const at::Tensor& errors, const at::Tensor& target_total,
                               const at::Tensor& /*preds_total*/,
                               const at::Tensor& /*total*/) const {
  return errors / target_total;
}

}  // namespace fulgur::metrics
