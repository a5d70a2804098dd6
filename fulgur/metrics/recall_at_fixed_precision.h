#pragma once
// RecallAtFixedPrecision (torchmetrics'): per class (label), the highest recall among the
// points of its precision-recall curve with precision >= min_precision, and the threshold
// that gives it (operating_points()); compute() is the recall. A class without positives, or
// without a point that precise, scores 0 at threshold 1e6.
// Inputs, thresholds (exact or binned) and states: PrecisionRecallCurve's, whose curves() it keeps.
#include <optional>

#include "fulgur/metrics/operating_point.h"
#include "fulgur/metrics/precision_recall_curve.h"

namespace fulgur::metrics {

class RecallAtFixedPrecision : public PrecisionRecallCurve {
 public:
  // Raises ConfigError for min_precision outside [0, 1] and PrecisionRecallCurve's bad options.
  RecallAtFixedPrecision(double min_precision, PrecisionRecallCurveOptions options);
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
