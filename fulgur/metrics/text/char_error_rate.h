#pragma once
// CharErrorRate (torchmetrics' CER): the character-level edit distance from the references
// to the predictions over the references' characters (code points), summed over the corpus.
// 0 is perfect; above 1 when the predictions insert more than the references hold.
#include <optional>

#include "fulgur/metrics/text/error_rate_metric.h"

namespace fulgur::metrics {

class CharErrorRate : public ErrorRateMetric {
 public:
  CharErrorRate();
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  at::Tensor rate(const at::Tensor& errors, const at::Tensor& target_total,
                  const at::Tensor& preds_total, const at::Tensor& total) const override;
};

}  // namespace fulgur::metrics
