#include "fulgur/metrics/completeness_score.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/clustering_inputs.h"

namespace fulgur::metrics {

CompletenessScore::CompletenessScore() : ClusterLabelMetric("CompletenessScore") {}

double CompletenessScore::score(const at::Tensor& contingency) const {
  return homogeneity_completeness(contingency).completeness;
}

}  // namespace fulgur::metrics
