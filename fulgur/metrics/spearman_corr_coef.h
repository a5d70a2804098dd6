#pragma once
// SpearmanCorrCoef (torchmetrics'): the Pearson correlation of the ranks of preds and of
// target, in [-1, 1], as scipy's spearmanr; tied values share their mean rank. [N] each for
// one output, or [N, num_outputs] for a [num_outputs] tensor of per-column correlations.
// Ranks need every sample, so preds and target are cat states (memory grows with the
// samples; sync() gathers them from every rank). Fewer than 2 samples raise MetricError; a
// constant preds or target gives NaN, as scipy (torchmetrics' epsilon makes it 0).
#include <cstdint>
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct SpearmanCorrCoefOptions {
  int64_t num_outputs = 1;
};

class SpearmanCorrCoef : public Metric {
 public:
  // Raises ConfigError for num_outputs < 1.
  explicit SpearmanCorrCoef(SpearmanCorrCoefOptions options = {});
  bool is_scalar() const override { return options_.num_outputs == 1; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  SpearmanCorrCoefOptions options_;
  StateId preds_, target_;
};

}  // namespace fulgur::metrics
