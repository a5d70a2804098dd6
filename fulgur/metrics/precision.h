#pragma once
// Precision (torchmetrics'): tp / (tp + fp): how many of the predicted positives are right.
// Averaging, zero denominators and options as in StatScores.
#include "fulgur/metrics/stat_scores.h"

namespace fulgur::metrics {

class Precision : public StatScores {
 public:
  // Raises ConfigError for bad options (see ClassificationOptions).
  explicit Precision(ClassificationOptions options);

 protected:
  at::Tensor score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                   const at::Tensor& fn) const override;
};

}  // namespace fulgur::metrics
