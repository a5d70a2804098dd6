#pragma once
// FBetaScore (torchmetrics'): (1 + beta^2) tp / ((1 + beta^2) tp + beta^2 fn + fp), the
// weighted harmonic mean of precision and recall (beta > 1 favours recall). F1Score is
// beta = 1. Averaging, zero denominators and options as in StatScores.
#include "fulgur/metrics/stat_scores.h"

namespace fulgur::metrics {

class FBetaScore : public StatScores {
 public:
  // Raises ConfigError for beta <= 0 (or not finite) and bad options (see ClassificationOptions).
  FBetaScore(double beta, ClassificationOptions options);
  double beta() const { return beta_; }

 protected:
  FBetaScore(std::string name, double beta, ClassificationOptions options);
  at::Tensor score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                   const at::Tensor& fn) const override;

 private:
  double beta_;
};

}  // namespace fulgur::metrics
