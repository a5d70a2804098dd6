#pragma once
// HammingDistance (torchmetrics'): the share of wrong answers, 1 - Accuracy with the same
// counts and averaging. Binary: (fp + fn) / N; multilabel: per label, so micro is sklearn's
// hamming_loss over every (sample, label) answer; multiclass: per class 1 - recall, so micro is
// the share of samples whose class is missed. Lower is better.
// Averaging, zero denominators (a score of 1 there) and options as in StatScores.
#include <optional>

#include "fulgur/metrics/accuracy.h"

namespace fulgur::metrics {

class HammingDistance : public Accuracy {
 public:
  // Raises ConfigError for bad options (see ClassificationOptions).
  explicit HammingDistance(ClassificationOptions options);
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  at::Tensor score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                   const at::Tensor& fn) const override;
};

}  // namespace fulgur::metrics
