#pragma once
// CompletenessScore (torchmetrics', sklearn's completeness_score): 1 when every member of a true
// class lies in one predicted cluster; the mutual information over the preds' entropy.
#include "fulgur/metrics/cluster_label_metric.h"

namespace fulgur::metrics {

class CompletenessScore : public ClusterLabelMetric {
 public:
  CompletenessScore();

 protected:
  double score(const at::Tensor& contingency) const override;
};

}  // namespace fulgur::metrics
