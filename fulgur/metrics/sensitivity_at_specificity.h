#pragma once
// SensitivityAtSpecificity (torchmetrics'): per class (label), the highest sensitivity (true
// positive rate) among the points of its ROC curve with specificity (1 - false positive rate)
// >= min_specificity, and the threshold that gives it (operating_points(); the highest
// threshold among ties). No such point: 0 at threshold 1e6.
// The rest: OperatingPointMetric's and ROC's.
#include "fulgur/metrics/operating_point_metric.h"
#include "fulgur/metrics/roc.h"

namespace fulgur::metrics {

class SensitivityAtSpecificity : public OperatingPointMetric<ROC> {
 public:
  // Raises ConfigError for min_specificity outside [0, 1] and ROC's bad options.
  SensitivityAtSpecificity(double min_specificity, CurvePointsOptions options);

 protected:
  OperatingPoint best(const CurvePoints& curve) const override;
};

}  // namespace fulgur::metrics
