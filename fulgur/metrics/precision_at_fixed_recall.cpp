#include "fulgur/metrics/precision_at_fixed_recall.h"

#include <ATen/ATen.h>

#include <vector>

namespace fulgur::metrics {

PrecisionAtFixedRecall::PrecisionAtFixedRecall(double min_recall,
                                               PrecisionRecallCurveOptions options)
    : PrecisionRecallCurve("PrecisionAtFixedRecall", std::move(options)), min_(min_recall) {
  check_minimum(name(), "min_recall", min_);
}

OperatingPoints PrecisionAtFixedRecall::operating_points() {
  std::vector<OperatingPoint> points;
  for (const auto& c : curves())
    points.push_back(best_on_precision_recall(c.precision, c.recall, c.thresholds, min_));
  return stack_points(points, task() == Task::Binary);
}

at::Tensor PrecisionAtFixedRecall::compute_value() { return operating_points().value; }

}  // namespace fulgur::metrics
