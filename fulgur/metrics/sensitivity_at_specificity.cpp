#include "fulgur/metrics/sensitivity_at_specificity.h"

#include <ATen/ATen.h>

#include <vector>

namespace fulgur::metrics {

SensitivityAtSpecificity::SensitivityAtSpecificity(double min_specificity, ROCOptions options)
    : ROC("SensitivityAtSpecificity", std::move(options)), min_(min_specificity) {
  check_minimum(name(), "min_specificity", min_);
}

OperatingPoints SensitivityAtSpecificity::operating_points() {
  std::vector<OperatingPoint> points;
  for (const auto& c : curves())
    points.push_back(best_on_roc(c.tpr, 1 - c.fpr, c.thresholds, min_));
  return stack_points(points, task() == Task::Binary);
}

at::Tensor SensitivityAtSpecificity::compute_value() { return operating_points().value; }

}  // namespace fulgur::metrics
