#pragma once
// SpecificityAtSensitivity (torchmetrics'): per class (label), the highest specificity (1 -
// false positive rate) among the points of its ROC curve with sensitivity (true positive rate)
// >= min_sensitivity, and the threshold that gives it (operating_points(); the highest
// threshold among ties). No such point: 0 at threshold 1e6.
// The rest: OperatingPointMetric's and ROC's.
#include "fulgur/metrics/operating_point_metric.h"
#include "fulgur/metrics/roc.h"

namespace fulgur::metrics {

class SpecificityAtSensitivity : public OperatingPointMetric<ROC> {
 public:
  // Raises ConfigError for min_sensitivity outside [0, 1] and ROC's bad options.
  SpecificityAtSensitivity(double min_sensitivity, CurvePointsOptions options);

 protected:
  OperatingPoint best(const CurvePoints& curve) const override;
};

}  // namespace fulgur::metrics
