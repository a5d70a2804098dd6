#include "fulgur/metrics/specificity_at_sensitivity.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

SpecificityAtSensitivity::SpecificityAtSensitivity(double min_sensitivity,
                                                   CurvePointsOptions options)
    : OperatingPointMetric("SpecificityAtSensitivity", std::move(options), "min_sensitivity",
                           min_sensitivity) {}

OperatingPoint SpecificityAtSensitivity::best(const CurvePoints& curve) const {
  return best_on_roc(1 - curve.fpr, curve.tpr, curve.thresholds, minimum());
}

}  // namespace fulgur::metrics
