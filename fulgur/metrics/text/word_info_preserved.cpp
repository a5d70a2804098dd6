#include "fulgur/metrics/text/word_info_preserved.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

WordInfoPreserved::WordInfoPreserved() : ErrorRateMetric("WordInfoPreserved", Unit::Words) {}

at::Tensor WordInfoPreserved::rate(const at::Tensor& errors, const at::Tensor& target_total,
                                   const at::Tensor& preds_total, const at::Tensor& total) const {
  const auto hits = total - errors;
  return hits / target_total * (hits / preds_total);
}

}  // namespace fulgur::metrics
