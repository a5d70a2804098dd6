#include "fulgur/metrics/sensitivity_at_specificity.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

SensitivityAtSpecificity::SensitivityAtSpecificity(double min_specificity,
                                                   CurvePointsOptions options)
    : OperatingPointMetric("SensitivityAtSpecificity", std::move(options), "min_specificity",
                           min_specificity) {}

OperatingPoint SensitivityAtSpecificity::best(const CurvePoints& curve) const {
  return best_on_roc(curve.tpr, 1 - curve.fpr, curve.thresholds, minimum());
}

}  // namespace fulgur::metrics
