#include "fulgur/metrics/mutual_info_score.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/clustering_inputs.h"

namespace fulgur::metrics {

MutualInfoScore::MutualInfoScore() : ClusterLabelMetric("MutualInfoScore") {}

double MutualInfoScore::score(const at::Tensor& contingency) const {
  return mutual_information(contingency);
}

}  // namespace fulgur::metrics
