#pragma once
// What RecallAtFixedPrecision, PrecisionAtFixedRecall, SensitivityAtSpecificity and
// SpecificityAtSensitivity share (torchmetrics' rules): on each class' curve, the best value
// among the points that meet a minimum of the other quantity, and the threshold it is reached
// at. No point meets the minimum: value 0 at threshold 1e6 (a threshold no score clears).
#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

namespace fulgur::metrics {

struct OperatingPoints {
  at::Tensor value;      // float64: 0-dim for a binary task, else [classes]
  at::Tensor threshold;  // float64, value's shape
};

struct OperatingPoint {
  double value, threshold;
};

// On a precision-recall curve (torchmetrics' max over (value, constraint, threshold) tuples):
// the largest value among the points with constraint >= minimum; ties go to the larger
// constraint, then the larger threshold. A best value of 0 is reported at threshold 1e6.
// value and constraint may hold one point more than thresholds: the curve's end point
// (precision 1, recall 0), which has no threshold and is left out.
OperatingPoint best_on_precision_recall(const at::Tensor& value, const at::Tensor& constraint,
                                        const at::Tensor& thresholds, double minimum);

// On a ROC curve (torchmetrics' argmax): the first point, highest threshold first, with the
// largest value among those with constraint >= minimum.
OperatingPoint best_on_roc(const at::Tensor& value, const at::Tensor& constraint,
                           const at::Tensor& thresholds, double minimum);

// The classes' points as tensors: 0-dim for one binary curve.
OperatingPoints stack_points(const std::vector<OperatingPoint>& points, bool binary);

// ConfigError unless `minimum` (named `what`, e.g. "min_precision") lies in [0, 1].
void check_minimum(const std::string& metric, const std::string& what, double minimum);

}  // namespace fulgur::metrics
