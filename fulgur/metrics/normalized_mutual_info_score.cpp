#include "fulgur/metrics/normalized_mutual_info_score.h"

#include <ATen/ATen.h>

#include <utility>

#include "fulgur/metrics/clustering_inputs.h"

namespace fulgur::metrics {

NormalizedMutualInfoScore::NormalizedMutualInfoScore(NormalizedMutualInfoScoreOptions options)
    : ClusterLabelMetric("NormalizedMutualInfoScore"), options_(std::move(options)) {
  check_average_method(name(), options_.average_method);
}

double NormalizedMutualInfoScore::score(const at::Tensor& contingency) const {
  if (contingency.size(0) == 1 && contingency.size(1) == 1) return 1.0;
  const double information = mutual_information(contingency);
  // Not a perfect match (that case is above): no shared information scores 0 whatever the
  // normalizer, which may be 0 itself (the "min" of a single cluster's entropy).
  if (information == 0) return 0.0;
  return information / generalized_mean(cluster_entropy(contingency.sum(1)),
                                        cluster_entropy(contingency.sum(0)),
                                        options_.average_method);
}

}  // namespace fulgur::metrics
