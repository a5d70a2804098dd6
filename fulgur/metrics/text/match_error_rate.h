#pragma once
// MatchErrorRate (torchmetrics' MER): the word-level edit distance over the longer of each
// pair's word counts, summed over the corpus: the share of words that were not matched, in
// [0, 1].
#include <optional>

#include "fulgur/metrics/text/error_rate_metric.h"

namespace fulgur::metrics {

class MatchErrorRate : public ErrorRateMetric {
 public:
  MatchErrorRate();
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  at::Tensor rate(const at::Tensor& errors, const at::Tensor& target_total,
                  const at::Tensor& preds_total, const at::Tensor& total) const override;
};

}  // namespace fulgur::metrics
