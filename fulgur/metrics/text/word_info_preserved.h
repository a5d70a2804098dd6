#pragma once
// WordInfoPreserved (torchmetrics' WIP): H^2 / (N_target N_preds), with H = the longer length
// minus the edit distance summed over the pairs (torchmetrics' count of the matched words) and
// N the corpus' word counts; 1 is perfect.
#include <optional>

#include "fulgur/metrics/text/error_rate_metric.h"

namespace fulgur::metrics {

class WordInfoPreserved : public ErrorRateMetric {
 public:
  WordInfoPreserved();
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  at::Tensor rate(const at::Tensor& errors, const at::Tensor& target_total,
                  const at::Tensor& preds_total, const at::Tensor& total) const override;
};

}  // namespace fulgur::metrics
