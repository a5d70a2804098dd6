#pragma once
// AdjustedMutualInfoScore (torchmetrics', sklearn's adjusted_mutual_info_score): the mutual
// information adjusted for chance, (MI - E[MI]) / (mean entropy - E[MI]), E[MI] being its
// expectation over random clusterings of the same cluster sizes (the hypergeometric model). 1 for
// identical clusterings, about 0 for random ones, negative when worse than chance. The
// expectation costs a loop over every pair of clusters: O(clusters^2 * samples) at worst.
#include "fulgur/metrics/cluster_label_metric.h"
#include "fulgur/metrics/normalized_mutual_info_score.h"

namespace fulgur::metrics {

// The same choice of normalizer as NormalizedMutualInfoScore's.
using AdjustedMutualInfoScoreOptions = NormalizedMutualInfoScoreOptions;

class AdjustedMutualInfoScore : public ClusterLabelMetric {
 public:
  // Raises ConfigError for an unknown average_method.
  explicit AdjustedMutualInfoScore(AdjustedMutualInfoScoreOptions options = {});

 protected:
  double score(const at::Tensor& contingency) const override;

 private:
  AdjustedMutualInfoScoreOptions options_;
};

}  // namespace fulgur::metrics
