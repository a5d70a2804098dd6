#include "fulgur/metrics/rand_score.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/clustering_inputs.h"

namespace fulgur::metrics {

RandScore::RandScore() : ClusterLabelMetric("RandScore") {}

double RandScore::score(const at::Tensor& contingency) const {
  const auto pairs = pair_counts(contingency);
  const double agree = pairs.together_in_both + pairs.apart_in_both;
  const double all = agree + pairs.together_in_preds_only + pairs.together_in_target_only;
  if (agree == all || all == 0) return 1.0;
  return agree / all;
}

}  // namespace fulgur::metrics
