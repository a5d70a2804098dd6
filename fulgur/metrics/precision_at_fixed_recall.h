#pragma once
// PrecisionAtFixedRecall (torchmetrics'): per class (label), the highest precision among the
// points of its precision-recall curve with recall >= min_recall, and the threshold that gives
// it (operating_points()). A class without such a point (or without positives) scores 0 at
// threshold 1e6.
// The rest: OperatingPointMetric's and PrecisionRecallCurve's.
#include "fulgur/metrics/operating_point_metric.h"
#include "fulgur/metrics/precision_recall_curve.h"

namespace fulgur::metrics {

class PrecisionAtFixedRecall : public OperatingPointMetric<PrecisionRecallCurve> {
 public:
  // Raises ConfigError for min_recall outside [0, 1] and PrecisionRecallCurve's bad options.
  PrecisionAtFixedRecall(double min_recall, CurvePointsOptions options);

 protected:
  OperatingPoint best(const CurvePoints& curve) const override;
};

}  // namespace fulgur::metrics
