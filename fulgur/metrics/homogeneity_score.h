#pragma once
// HomogeneityScore (torchmetrics', sklearn's homogeneity_score): 1 when each predicted cluster
// holds members of a single true class; the mutual information over the target's entropy.
#include "fulgur/metrics/cluster_label_metric.h"

namespace fulgur::metrics {

class HomogeneityScore : public ClusterLabelMetric {
 public:
  HomogeneityScore();

 protected:
  double score(const at::Tensor& contingency) const override;
};

}  // namespace fulgur::metrics
