#pragma once
// ContinuousRankedProbabilityScore (torchmetrics' CRPS): how well an ensemble forecast
// ([N, members] preds, at least 2 members) matches the observations ([N] target), the mean
// over the samples of E|X - y| - E|X - X'| / 2 over the ensemble's empirical distribution (the
// integral of (F(x) - 1[x >= y])^2); lower is better, and it is the absolute error for a
// one-point ensemble. The pairwise term is taken from the sorted members in O(m log m).
// States: "score" and "total".
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class ContinuousRankedProbabilityScore : public Metric {
 public:
  ContinuousRankedProbabilityScore();
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  StateId score_, total_;
};

}  // namespace fulgur::metrics
