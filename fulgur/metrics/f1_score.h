#pragma once
// F1Score (torchmetrics'): 2 tp / (2 tp + fp + fn), the harmonic mean of precision and recall.
// Averaging, zero denominators and options as in StatScores.
#include "fulgur/metrics/stat_scores.h"

namespace fulgur::metrics {

class F1Score : public StatScores {
 public:
  // Raises ConfigError for bad options (see ClassificationOptions).
  explicit F1Score(ClassificationOptions options);

 protected:
  at::Tensor score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                   const at::Tensor& fn) const override;
};

}  // namespace fulgur::metrics
