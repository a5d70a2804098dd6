#pragma once
// Accuracy (torchmetrics'): the fraction of samples predicted right. Binary: (tp + tn) / N.
// Multiclass: per class tp / (tp + fn), so micro is correct / N and, with top_k, a sample
// counts as right when its class is among the k highest scores. Multilabel: per label
// (tp + tn) / N, so micro is the share of right (sample, label) answers, 1 - sklearn's
// hamming_loss (not sklearn's accuracy_score, which counts a sample right only when every
// label is), as torchmetrics.
// Averaging, zero denominators and options as in StatScores.
#include "fulgur/metrics/stat_scores.h"

namespace fulgur::metrics {

class Accuracy : public StatScores {
 public:
  // Raises ConfigError for bad options (see ClassificationOptions).
  explicit Accuracy(ClassificationOptions options);

 protected:
  // For metrics scored from Accuracy's (HammingDistance).
  Accuracy(std::string name, ClassificationOptions options);
  at::Tensor score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                   const at::Tensor& fn) const override;
};

}  // namespace fulgur::metrics
