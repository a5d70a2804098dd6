#pragma once
// NegativePredictiveValue (torchmetrics'): tn / (tn + fn): how many of the samples called
// negative are negative (the precision of the negative class). Averaging, zero denominators
// and options as in StatScores.
#include "fulgur/metrics/stat_scores.h"

namespace fulgur::metrics {

class NegativePredictiveValue : public StatScores {
 public:
  // Raises ConfigError for bad options (see ClassificationOptions).
  explicit NegativePredictiveValue(ClassificationOptions options);

 protected:
  at::Tensor score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                   const at::Tensor& fn) const override;
};

}  // namespace fulgur::metrics
