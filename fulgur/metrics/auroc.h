#pragma once
// AUROC (torchmetrics'): the area under the ROC curve by trapezoids. Exact (thresholds unset):
// from every score seen, as sklearn's roc_auc_score computes it (tied scores form one point of
// the curve, so a tie between a positive and a negative counts one half). Binned (thresholds
// set): the trapezoids between the points at the thresholds only, as torchmetrics; with the
// default grid over [0, 1] that is roc_auc_score of scores rounded down to the grid, as long as
// no score reaches the highest threshold. Inputs, averages, thresholds and states: CurveMetric.
// A class with no positive or no negative sample has no ROC curve: sklearn raises; like
// torchmetrics this scores it 0 and warns.
#include "fulgur/metrics/curve_metric.h"

namespace fulgur::metrics {

using AUROCOptions = CurveOptions;

class AUROC : public CurveMetric {
 public:
  // Raises ConfigError for a bad task, num_classes, average or thresholds.
  explicit AUROC(AUROCOptions options);

 protected:
  double score(const ThresholdCounts& curve, const std::string& what) const override;
};

}  // namespace fulgur::metrics
