#pragma once
// RandScore (torchmetrics', sklearn's rand_score): the share of sample pairs that both
// clusterings treat alike (together in both or apart in both), in [0, 1]; 1 when there is no
// pair to disagree on.
#include "fulgur/metrics/cluster_label_metric.h"

namespace fulgur::metrics {

class RandScore : public ClusterLabelMetric {
 public:
  RandScore();

 protected:
  double score(const at::Tensor& contingency) const override;
};

}  // namespace fulgur::metrics
