#include "fulgur/metrics/text/word_info_lost.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

WordInfoLost::WordInfoLost() : ErrorRateMetric("WordInfoLost", Unit::Words) {}

at::Tensor WordInfoLost::rate(const at::Tensor& errors, const at::Tensor& target_total,
                              const at::Tensor& preds_total, const at::Tensor& total) const {
  const auto hits = total - errors;
  return 1 - hits / target_total * (hits / preds_total);
}

}  // namespace fulgur::metrics
