#include "fulgur/metrics/recall_at_fixed_precision.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

RecallAtFixedPrecision::RecallAtFixedPrecision(double min_precision, CurvePointsOptions options)
    : OperatingPointMetric("RecallAtFixedPrecision", std::move(options), "min_precision",
                           min_precision) {}

OperatingPoint RecallAtFixedPrecision::best(const CurvePoints& curve) const {
  return best_on_precision_recall(curve.recall, curve.precision, curve.thresholds, minimum());
}

}  // namespace fulgur::metrics
