#pragma once
// PrecisionRecallCurve (torchmetrics'): each class' precision and recall at each threshold,
// from the lowest threshold up, then the point (precision 1, recall 0) that ends every curve.
//   exact   (thresholds unset): a point per distinct score, as sklearn's
//           precision_recall_curve.
//   binned  (thresholds set): a point per threshold; a threshold no sample clears has
//           precision 0, as torchmetrics.
// A class without positives has no recall: NaN at every point but the last, with a warning
// (torchmetrics' exact curve; its binned curve says 0).
// compute() stacks them: [2, points + 1] (precision, recall) for a binary task,
// [classes, 2, points + 1] for the binned curves of a multiclass or multilabel task. The exact
// curves of several classes differ in length, so there compute() raises MetricError and
// curves() gives each. Inputs, thresholds and states: CurveMetric.
#include <string>
#include <vector>

#include "fulgur/metrics/curve_metric.h"

namespace fulgur::metrics {

using PrecisionRecallCurveOptions = CurvePointsOptions;

struct PrecisionRecallPoints {
  at::Tensor precision, recall;  // float64 [points + 1]
  at::Tensor thresholds;         // float64 [points], increasing
};

class PrecisionRecallCurve : public CurveMetric {
 public:
  // Raises ConfigError for a bad task, num_classes, num_labels or thresholds.
  explicit PrecisionRecallCurve(PrecisionRecallCurveOptions options);
  bool is_scalar() const override { return false; }
  // Each class' (label's) curve, one for a binary task, from the states (after sync(): every
  // rank's). MetricError before any update.
  std::vector<PrecisionRecallPoints> curves();

 protected:
  // For the metrics that read an operating point off the curve (SensitivityAtSpecificity, ...).
  PrecisionRecallCurve(std::string metric_name, PrecisionRecallCurveOptions options);
  at::Tensor compute_value() override;
};

}  // namespace fulgur::metrics
