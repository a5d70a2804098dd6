#include "fulgur/metrics/fowlkes_mallows_index.h"

#include <ATen/ATen.h>

#include <cmath>

#include "fulgur/metrics/clustering_inputs.h"

namespace fulgur::metrics {

FowlkesMallowsIndex::FowlkesMallowsIndex() : ClusterLabelMetric("FowlkesMallowsIndex") {}

double FowlkesMallowsIndex::score(const at::Tensor& contingency) const {
  const auto p = pair_counts(contingency);
  if (p.together_in_both == 0) return 0.0;
  // Two square roots, as sklearn, so huge pair counts do not overflow their product.
  return std::sqrt(p.together_in_both / (p.together_in_both + p.together_in_preds_only)) *
         std::sqrt(p.together_in_both / (p.together_in_both + p.together_in_target_only));
}

}  // namespace fulgur::metrics
