#pragma once
// ROC (torchmetrics'): each class' receiver operating characteristic, the false and true
// positive rates at each threshold, from the highest threshold down.
//   exact   (thresholds unset): the origin at threshold 1, then a point per distinct score
//           (sklearn's roc_curve(drop_intermediate=False), whose first threshold is the
//           highest score + 1 instead).
//   binned  (thresholds set): a point per threshold, the thresholds decreasing.
// A class without positives (negatives) has a true (false) positive rate of 0 at every point,
// with a warning, as torchmetrics.
// compute() stacks the rates: [2, points] (fpr, tpr) for a binary task, [classes, 2, points]
// for the binned curves of a multiclass or multilabel task. The exact curves of several
// classes differ in length, so there compute() raises MetricError and curves() gives each.
// Inputs, thresholds and states: CurveMetric.
#include <string>
#include <vector>

#include "fulgur/metrics/curve_metric.h"

namespace fulgur::metrics {

using ROCOptions = CurvePointsOptions;

struct RocCurve {
  at::Tensor fpr, tpr;    // float64 [points]
  at::Tensor thresholds;  // float64 [points], decreasing
};

class ROC : public CurveMetric {
 public:
  // Raises ConfigError for a bad task, num_classes, num_labels or thresholds.
  explicit ROC(ROCOptions options);
  bool is_scalar() const override { return false; }
  // Each class' (label's) curve, one for a binary task, from the states (after sync(): every
  // rank's). MetricError before any update.
  std::vector<RocCurve> curves();

 protected:
  // For the metrics that read an operating point off the curve (SensitivityAtSpecificity, ...).
  ROC(std::string metric_name, ROCOptions options);
  at::Tensor compute_value() override;
};

}  // namespace fulgur::metrics
