#pragma once
// SpearmanCorrCoef (torchmetrics'): the Pearson correlation of the ranks of preds and of
// target ([N] each), in [-1, 1], as scipy's spearmanr; tied values share their mean rank.
// Ranks need every sample, so preds and target are cat states (memory grows with the
// samples; sync() gathers them from every rank). Fewer than 2 samples raise MetricError; a
// constant preds or target gives NaN, as scipy (torchmetrics' epsilon makes it 0).
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class SpearmanCorrCoef : public Metric {
 public:
  SpearmanCorrCoef();
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  StateId preds_, target_;
};

}  // namespace fulgur::metrics
