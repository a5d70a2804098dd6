#include "fulgur/metrics/text/match_error_rate.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

MatchErrorRate::MatchErrorRate() : ErrorRateMetric("MatchErrorRate", Unit::Words) {}

at::Tensor MatchErrorRate::rate(const at::Tensor& errors, const at::Tensor& /*target_total*/,
                                const at::Tensor& /*preds_total*/, const at::Tensor& total) const {
  return errors / total;
}

}  // namespace fulgur::metrics
