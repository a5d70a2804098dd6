#pragma once
// ConcordanceCorrCoef (torchmetrics'): Lin's concordance correlation coefficient, how well
// preds agree with target on the identity line, in [-1, 1]:
//   2 cov(preds, target) / (var(preds) + var(target) + (mean(preds) - mean(target))^2)
// with the sample (n - 1) covariance and variances, as torchmetrics. [N] for one output, or
// [N, num_outputs] for a [num_outputs] tensor. The states and their exact merge are
// PearsonCorrCoef's; fewer than 2 samples raise MetricError. A constant preds scores 0 against
// a varying target (the covariance is 0); preds and target one and the same constant give NaN.
#include "fulgur/metrics/pearson_corr_coef.h"

namespace fulgur::metrics {

class ConcordanceCorrCoef : public PearsonCorrCoef {
 public:
  // Raises ConfigError for num_outputs < 1.
  explicit ConcordanceCorrCoef(PearsonCorrCoefOptions options = {});

 protected:
  at::Tensor compute_value() override;
};

}  // namespace fulgur::metrics
