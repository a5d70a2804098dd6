#pragma once
// MultilabelRankingLoss (torchmetrics'): per sample, the share of (true, false) label pairs
// ranked wrong, the false label scoring at least as high as the true one (ties count as wrong,
// as sklearn's label_ranking_loss; torchmetrics breaks them by position), averaged over the
// samples; a sample with no true label, or only true ones, scores 0. Lower is better. See
// MultilabelRankingMetric.
#include <optional>

#include "fulgur/metrics/multilabel_ranking_metric.h"

namespace fulgur::metrics {

class MultilabelRankingLoss : public MultilabelRankingMetric {
 public:
  explicit MultilabelRankingLoss(const MultilabelRankingOptions& options);
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  at::Tensor sample_scores(const at::Tensor& preds, const at::Tensor& target,
                           const at::Tensor& at_least) const override;
};

}  // namespace fulgur::metrics
