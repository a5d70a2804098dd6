#include "fulgur/metrics/precision_at_fixed_recall.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

PrecisionAtFixedRecall::PrecisionAtFixedRecall(double min_recall, CurvePointsOptions options)
    : OperatingPointMetric("PrecisionAtFixedRecall", std::move(options), "min_recall", min_recall) {
}

OperatingPoint PrecisionAtFixedRecall::best(const CurvePoints& curve) const {
  return best_on_precision_recall(curve.precision, curve.recall, curve.thresholds, minimum());
}

}  // namespace fulgur::metrics
