#pragma once
// MultilabelCoverageError (torchmetrics'): how far down each sample's ranking one must go to
// cover all its true labels (the count of labels scoring at least its lowest-scored true one),
// averaged over the samples, as sklearn's coverage_error; a sample without a true label counts
// 0. Lower is better; num_labels at worst. See MultilabelRankingMetric.
#include <optional>

#include "fulgur/metrics/multilabel_ranking_metric.h"

namespace fulgur::metrics {

class MultilabelCoverageError : public MultilabelRankingMetric {
 public:
  explicit MultilabelCoverageError(const MultilabelRankingOptions& options);
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  at::Tensor sample_scores(const at::Tensor& preds, const at::Tensor& target,
                           const at::Tensor& at_least) const override;
};

}  // namespace fulgur::metrics
