#pragma once
// PrecisionAtFixedRecall (torchmetrics'): per class (label), the highest precision among the
// points of its precision-recall curve with recall >= min_recall, and the threshold that gives
// it (operating_points()); compute() is the precision. A class without such a point (or
// without positives) scores 0 at threshold 1e6.
// Inputs, thresholds (exact or binned) and states: PrecisionRecallCurve's, whose curves() it keeps.
#include <optional>

#include "fulgur/metrics/operating_point.h"
#include "fulgur/metrics/precision_recall_curve.h"

namespace fulgur::metrics {

class PrecisionAtFixedRecall : public PrecisionRecallCurve {
 public:
  // Raises ConfigError for min_recall outside [0, 1] and PrecisionRecallCurve's bad options.
  PrecisionAtFixedRecall(double min_recall, PrecisionRecallCurveOptions options);
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
