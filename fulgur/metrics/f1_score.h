#pragma once
// F1Score (torchmetrics'): 2 tp / (2 tp + fp + fn), the harmonic mean of precision and recall:
// FBetaScore with beta = 1. Averaging, zero denominators and options as in StatScores.
#include "fulgur/metrics/fbeta_score.h"

namespace fulgur::metrics {

class F1Score : public FBetaScore {
 public:
  // Raises ConfigError for bad options (see ClassificationOptions).
  explicit F1Score(ClassificationOptions options);
};

}  // namespace fulgur::metrics
