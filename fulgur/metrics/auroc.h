#pragma once
// AUROC (torchmetrics', with thresholds=None): the exact area under the ROC curve, from every
// score seen, as sklearn's roc_auc_score computes it (tied scores form one point of the
// curve, so a tie between a positive and a negative counts one half). Inputs, averages and
// states: CurveMetric.
// A class with no positive or no negative sample has no ROC curve: sklearn raises; like
// torchmetrics this scores it 0 and warns.
#include "fulgur/metrics/curve_metric.h"

namespace fulgur::metrics {

using AUROCOptions = CurveOptions;

class AUROC : public CurveMetric {
 public:
  // Raises ConfigError for a bad task, num_classes or average.
  explicit AUROC(AUROCOptions options);

 protected:
  double binary_score(const at::Tensor& scores, const at::Tensor& positives,
                      const std::string& what) const override;
};

}  // namespace fulgur::metrics
