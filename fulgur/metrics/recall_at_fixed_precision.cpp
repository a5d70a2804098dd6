#include "fulgur/metrics/recall_at_fixed_precision.h"

#include <ATen/ATen.h>

#include <vector>

namespace fulgur::metrics {

RecallAtFixedPrecision::RecallAtFixedPrecision(double min_precision,
                                               PrecisionRecallCurveOptions options)
    : PrecisionRecallCurve("RecallAtFixedPrecision", std::move(options)), min_(min_precision) {
  check_minimum(name(), "min_precision", min_);
}

OperatingPoints RecallAtFixedPrecision::operating_points() {
  std::vector<OperatingPoint> points;
  for (const auto& c : curves())
    points.push_back(best_on_precision_recall(c.recall, c.precision, c.thresholds, min_));
  return stack_points(points, task() == Task::Binary);
}

at::Tensor RecallAtFixedPrecision::compute_value() { return operating_points().value; }

}  // namespace fulgur::metrics
