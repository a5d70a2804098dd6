#pragma once
// SpecificityAtSensitivity (torchmetrics'): per class (label), the highest specificity (1 -
// false positive rate) among the points of its ROC curve with sensitivity (true positive rate)
// >= min_sensitivity, and the threshold that gives it (operating_points(); the highest
// threshold among ties); compute() is the specificity. No such point: 0 at threshold 1e6.
// Inputs, thresholds (exact or binned) and states: ROC's, whose curves() it keeps.
#include <optional>

#include "fulgur/metrics/operating_point.h"
#include "fulgur/metrics/roc.h"

namespace fulgur::metrics {

class SpecificityAtSensitivity : public ROC {
 public:
  // Raises ConfigError for min_sensitivity outside [0, 1] and ROC's bad options.
  SpecificityAtSensitivity(double min_sensitivity, ROCOptions options);
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
