#pragma once
// EER (torchmetrics' equal error rate): on each class' ROC curve (ROC's, exact or binned), the
// point where the false positive rate is closest to the false negative rate 1 - tpr (the first
// such point, from the highest threshold down), and the mean of the two rates there: the error
// rate of the threshold that makes both errors equal, as speaker verification and biometrics
// report it. Lower is better. Binary: a 0-dim value; multiclass (one-vs-rest) and multilabel
// (per label): [C]. Options, inputs and states: ROC's.
#include <optional>

#include "fulgur/metrics/roc.h"

namespace fulgur::metrics {

class EER : public ROC {
 public:
  // Raises ConfigError for a bad task, num_classes, num_labels or thresholds.
  explicit EER(ROCOptions options);
  bool is_scalar() const override { return task() == Task::Binary; }
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  at::Tensor compute_value() override;
};

}  // namespace fulgur::metrics
