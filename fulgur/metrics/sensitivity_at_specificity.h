#pragma once
// SensitivityAtSpecificity (torchmetrics'): per class (label), the highest sensitivity (true
// positive rate) among the points of its ROC curve with specificity (1 - false positive rate)
// >= min_specificity, and the threshold that gives it (operating_points(); the highest
// threshold among ties); compute() is the sensitivity. No such point: 0 at threshold 1e6.
// Inputs, thresholds (exact or binned) and states: ROC's, whose curves() it keeps.
#include <optional>

#include "fulgur/metrics/operating_point.h"
#include "fulgur/metrics/roc.h"

namespace fulgur::metrics {

class SensitivityAtSpecificity : public ROC {
 public:
  // Raises ConfigError for min_specificity outside [0, 1] and ROC's bad options.
  SensitivityAtSpecificity(double min_specificity, ROCOptions options);
  bool is_scalar() const override { return task() == Task::Binary; }
  std::optional<bool> higher_is_better() const override { return true; }
  // Each class' best value and its threshold (after sync(): over every rank's samples).
  OperatingPoints operating_points();

 protected:
  at::Tensor compute_value() override;

 private:
  double min_;
};

}  // namespace fulgur::metrics
