#pragma once
// NormalizedMutualInfoScore (torchmetrics', sklearn's normalized_mutual_info_score): the mutual
// information over a mean of the two clusterings' entropies (average_method: the smaller,
// geometric, arithmetic or larger one), in [0, 1]. Two single-cluster clusterings are a perfect
// match (1, sklearn's special case).
#include <string>

#include "fulgur/metrics/cluster_label_metric.h"

namespace fulgur::metrics {

struct NormalizedMutualInfoScoreOptions {
  std::string average_method = "arithmetic";  // "min", "geometric", "arithmetic" or "max"
};

class NormalizedMutualInfoScore : public ClusterLabelMetric {
 public:
  // Raises ConfigError for an unknown average_method.
  explicit NormalizedMutualInfoScore(NormalizedMutualInfoScoreOptions options = {});

 protected:
  double score(const at::Tensor& contingency) const override;

 private:
  NormalizedMutualInfoScoreOptions options_;
};

}  // namespace fulgur::metrics
