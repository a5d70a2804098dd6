#pragma once
// AdjustedRandScore (torchmetrics', sklearn's adjusted_rand_score): the Rand index adjusted for
// chance, 1 for identical clusterings, about 0 for random ones, down to -0.5 when worse than
// chance.
#include "fulgur/metrics/cluster_label_metric.h"

namespace fulgur::metrics {

class AdjustedRandScore : public ClusterLabelMetric {
 public:
  AdjustedRandScore();

 protected:
  double score(const at::Tensor& contingency) const override;
};

}  // namespace fulgur::metrics
