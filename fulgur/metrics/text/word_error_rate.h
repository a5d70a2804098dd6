#pragma once
// WordErrorRate (torchmetrics' WER): the word-level edit distance (substitutions, deletions,
// insertions) from the references to the predictions over the references' words, summed over
// the corpus; words split on whitespace.
#include <optional>

#include "fulgur/metrics/text/error_rate_metric.h"

namespace fulgur::metrics {

class WordErrorRate : public ErrorRateMetric {
 public:
  WordErrorRate();
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  at::Tensor rate(const at::Tensor& errors, const at::Tensor& target_total,
                  const at::Tensor& preds_total, const at::Tensor& total) const override;
};

}  // namespace fulgur::metrics
