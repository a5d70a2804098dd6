#pragma once
// AveragePrecision (torchmetrics'): the area under the precision-recall curve as sklearn's
// average_precision_score sums it, sum_k (R_k - R_{k-1}) P_k over the curve's points from the
// highest threshold down (steps, no interpolation; R_{-1} = 0). Exact (thresholds unset): a
// point per distinct score, so tied scores form one point. Binned (thresholds set, from 0 up):
// a point per threshold, which equals sklearn's score of the scores rounded down to the
// thresholds; a threshold no sample clears has precision 1, as torchmetrics. Inputs, averages,
// thresholds and states: CurveMetric; averages: CurveScore.
// A class with no positive sample has no recall: it scores NaN with a warning, and the macro
// and weighted averages leave it out (torchmetrics' rule; sklearn scores it 0).
#include "fulgur/metrics/curve_score.h"

namespace fulgur::metrics {

using AveragePrecisionOptions = CurveOptions;

class AveragePrecision : public CurveScore {
 public:
  // Raises ConfigError for a bad task, num_classes, average or thresholds.
  explicit AveragePrecision(AveragePrecisionOptions options);

 protected:
  double score(const ThresholdCounts& curve, const std::string& what) const override;
};

}  // namespace fulgur::metrics
