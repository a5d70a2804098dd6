#pragma once
// Specificity (torchmetrics'): tn / (tn + fp): how many of the actual negatives are called
// negative (the recall of the negative class). Averaging, zero denominators and options as in
// StatScores.
#include "fulgur/metrics/stat_scores.h"

namespace fulgur::metrics {

class Specificity : public StatScores {
 public:
  // Raises ConfigError for bad options (see ClassificationOptions).
  explicit Specificity(ClassificationOptions options);

 protected:
  at::Tensor score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                   const at::Tensor& fn) const override;
};

}  // namespace fulgur::metrics
