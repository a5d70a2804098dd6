#pragma once
// FowlkesMallowsIndex (torchmetrics', sklearn's fowlkes_mallows_score): the geometric mean of the
// pairwise precision and recall, TP / sqrt((TP + FP) (TP + FN)) over the pairs of samples put
// together; 0 when no pair is together in both.
#include "fulgur/metrics/cluster_label_metric.h"

namespace fulgur::metrics {

class FowlkesMallowsIndex : public ClusterLabelMetric {
 public:
  FowlkesMallowsIndex();

 protected:
  double score(const at::Tensor& contingency) const override;
};

}  // namespace fulgur::metrics
