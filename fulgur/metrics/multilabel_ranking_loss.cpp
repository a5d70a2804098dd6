#include "fulgur/metrics/multilabel_ranking_loss.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

MultilabelRankingLoss::MultilabelRankingLoss(const MultilabelRankingOptions& options)
    : MultilabelRankingMetric("MultilabelRankingLoss", options) {}

at::Tensor MultilabelRankingLoss::sample_scores(const at::Tensor& preds, const at::Tensor& target,
                                                const at::Tensor& at_least) const {
  // at_least[n, j, k] with j true and k false: a pair ranked wrong.
  const auto wrong =
      (at_least & target.unsqueeze(2) & target.logical_not().unsqueeze(1)).sum({1, 2});
  const auto relevant = target.sum(1);
  const auto pairs = relevant * (preds.size(1) - relevant);
  return at::where(pairs.eq(0), at::zeros({}, preds.options()),
                   wrong.to(at::kDouble) / pairs.clamp_min(1).to(at::kDouble));
}

}  // namespace fulgur::metrics
