#include "fulgur/metrics/specificity_at_sensitivity.h"

#include <ATen/ATen.h>

#include <vector>

namespace fulgur::metrics {

SpecificityAtSensitivity::SpecificityAtSensitivity(double min_sensitivity, ROCOptions options)
    : ROC("SpecificityAtSensitivity", std::move(options)), min_(min_sensitivity) {
  check_minimum(name(), "min_sensitivity", min_);
}

OperatingPoints SpecificityAtSensitivity::operating_points() {
  std::vector<OperatingPoint> points;
  for (const auto& c : curves())
    points.push_back(best_on_roc(1 - c.fpr, c.tpr, c.thresholds, min_));
  return stack_points(points, task() == Task::Binary);
}

at::Tensor SpecificityAtSensitivity::compute_value() { return operating_points().value; }

}  // namespace fulgur::metrics
