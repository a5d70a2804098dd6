#include "fulgur/metrics/multilabel_ranking_average_precision.h"

#include <ATen/ATen.h>

namespace fulgur::metrics {

MultilabelRankingAveragePrecision::MultilabelRankingAveragePrecision(
    const MultilabelRankingOptions& options)
    : MultilabelRankingMetric("MultilabelRankingAveragePrecision", options) {}

at::Tensor MultilabelRankingAveragePrecision::sample_scores(const at::Tensor& preds,
                                                            const at::Tensor& target,
                                                            const at::Tensor& at_least) const {
  // For label j: the labels ranked at or above it, and the true ones among them.
  const auto ranked = at_least.sum(2).to(at::kDouble);
  const auto true_ranked = (at_least & target.unsqueeze(1)).sum(2).to(at::kDouble);
  const auto relevant = target.sum(1);
  const auto precision = at::where(target, true_ranked / ranked, at::zeros({}, preds.options()));
  const auto average = precision.sum(1) / relevant.clamp_min(1).to(at::kDouble);
  return at::where(relevant.eq(0) | relevant.eq(preds.size(1)), at::ones({}, preds.options()),
                   average);
}

}  // namespace fulgur::metrics
