#pragma once
// Accuracy (torchmetrics'): the fraction of samples predicted right. Binary: (tp + tn) / N.
// Multiclass: per class tp / (tp + fn), so micro is correct / N and, with top_k, a sample
// counts as right when its class is among the k highest scores.
// Averaging, zero denominators and options as in StatScores.
#include "fulgur/metrics/stat_scores.h"

namespace fulgur::metrics {

class Accuracy : public StatScores {
 public:
  // Raises ConfigError for bad options (see ClassificationOptions).
  explicit Accuracy(ClassificationOptions options);

 protected:
  at::Tensor score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                   const at::Tensor& fn) const override;
};

}  // namespace fulgur::metrics
