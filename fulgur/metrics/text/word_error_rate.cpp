#include "fulgur/metrics/text/word_error_rate.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

WordErrorRate::WordErrorRate() : ErrorRateMetric("WordErrorRate", Unit::Words) {}

at::Tensor WordErrorRate::rate(const at::Tensor& errors, const at::Tensor& target_total,
                               const at::Tensor& /*preds_total*/,
                               const at::Tensor& /*total*/) const {
  return errors / target_total;
}

}  // namespace fulgur::metrics
