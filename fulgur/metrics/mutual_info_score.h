#pragma once
// MutualInfoScore (torchmetrics', sklearn's mutual_info_score): the mutual information in nats
// between the predicted and the true clustering; 0 when either is a single cluster.
#include "fulgur/metrics/cluster_label_metric.h"

namespace fulgur::metrics {

class MutualInfoScore : public ClusterLabelMetric {
 public:
  MutualInfoScore();

 protected:
  double score(const at::Tensor& contingency) const override;
};

}  // namespace fulgur::metrics
