#pragma once
// Recall (torchmetrics'): tp / (tp + fn): how many of the actual positives are found.
// Averaging, zero denominators and options as in StatScores.
#include "fulgur/metrics/stat_scores.h"

namespace fulgur::metrics {

class Recall : public StatScores {
 public:
  // Raises ConfigError for bad options (see ClassificationOptions).
  explicit Recall(ClassificationOptions options);

 protected:
  at::Tensor score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                   const at::Tensor& fn) const override;
};

}  // namespace fulgur::metrics
