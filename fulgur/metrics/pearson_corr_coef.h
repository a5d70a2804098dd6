#pragma once
// PearsonCorrCoef (torchmetrics'): the linear correlation of preds and target ([N] each), in
// [-1, 1]. Each update keeps its batch's count, means, squared deviations and co-deviation
// (a cat state, six numbers per update, gathered across processes); compute() merges them
// exactly (Chan's pairwise update), so the value does not lose digits when the data sit far
// from zero, as one-pass sums of x^2 would. Fewer than 2 samples raise MetricError; a
// constant preds or target gives NaN, as torchmetrics and scipy.
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class PearsonCorrCoef : public Metric {
 public:
  PearsonCorrCoef();
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  StateId moments_;
};

}  // namespace fulgur::metrics
