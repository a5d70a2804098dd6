#include "fulgur/metrics/adjusted_rand_score.h"

#include <ATen/ATen.h>

#include "fulgur/metrics/clustering_inputs.h"

namespace fulgur::metrics {

AdjustedRandScore::AdjustedRandScore() : ClusterLabelMetric("AdjustedRandScore") {}

double AdjustedRandScore::score(const at::Tensor& contingency) const {
  const auto p = pair_counts(contingency);
  const double tp = p.together_in_both, tn = p.apart_in_both;
  const double fp = p.together_in_preds_only, fn = p.together_in_target_only;
  if (fp == 0 && fn == 0) return 1.0;  // the same clustering (also: a single sample)
  return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn));
}

}  // namespace fulgur::metrics
