#pragma once
// AveragePrecision (torchmetrics', with thresholds=None): the area under the precision-recall
// curve as sklearn's average_precision_score sums it, sum_k (R_k - R_{k-1}) P_k over the
// distinct scores from the highest down (steps, no interpolation; tied scores form one point).
// Inputs, averages and states: CurveMetric.
// A class with no positive sample has no recall: it scores NaN with a warning, and the macro
// and weighted averages leave it out (torchmetrics' rule; sklearn scores it 0).
#include "fulgur/metrics/curve_metric.h"

namespace fulgur::metrics {

using AveragePrecisionOptions = CurveOptions;

class AveragePrecision : public CurveMetric {
 public:
  // Raises ConfigError for a bad task, num_classes or average.
  explicit AveragePrecision(AveragePrecisionOptions options);

 protected:
  double binary_score(const at::Tensor& scores, const at::Tensor& positives,
                      const std::string& what) const override;
};

}  // namespace fulgur::metrics
