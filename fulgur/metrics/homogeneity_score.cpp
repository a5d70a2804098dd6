#include "fulgur/metrics/homogeneity_score.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/clustering_inputs.h"

namespace fulgur::metrics {

HomogeneityScore::HomogeneityScore() : ClusterLabelMetric("HomogeneityScore") {}

double HomogeneityScore::score(const at::Tensor& contingency) const {
  return homogeneity_completeness(contingency).homogeneity;
}

}  // namespace fulgur::metrics
