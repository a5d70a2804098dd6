#pragma once
// MultilabelRankingAveragePrecision (torchmetrics'): label ranking average precision, as
// sklearn's label_ranking_average_precision_score: for each true label of a sample, the share
// of true labels among the labels scoring at least as high, averaged over its true labels and
// then over the samples; a sample with no true label, or only true ones, scores 1. Higher is
// better; 1 at best. See MultilabelRankingMetric.
#include <optional>

#include "fulgur/metrics/multilabel_ranking_metric.h"

namespace fulgur::metrics {

class MultilabelRankingAveragePrecision : public MultilabelRankingMetric {
 public:
  explicit MultilabelRankingAveragePrecision(const MultilabelRankingOptions& options);
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  at::Tensor sample_scores(const at::Tensor& preds, const at::Tensor& target,
                           const at::Tensor& at_least) const override;
};

}  // namespace fulgur::metrics
