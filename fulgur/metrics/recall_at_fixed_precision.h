#pragma once
// RecallAtFixedPrecision (torchmetrics'): per class (label), the highest recall among the
// points of its precision-recall curve with precision >= min_precision, and the threshold
// that gives it (operating_points()). A class without positives, or without a point that
// precise, scores 0 at threshold 1e6.
// The rest: OperatingPointMetric's and PrecisionRecallCurve's.
#include "fulgur/metrics/operating_point_metric.h"
#include "fulgur/metrics/precision_recall_curve.h"

namespace fulgur::metrics {

class RecallAtFixedPrecision : public OperatingPointMetric<PrecisionRecallCurve> {
 public:
  // Raises ConfigError for min_precision outside [0, 1] and PrecisionRecallCurve's bad options.
  RecallAtFixedPrecision(double min_precision, CurvePointsOptions options);

 protected:
  OperatingPoint best(const CurvePoints& curve) const override;
};

}  // namespace fulgur::metrics
