#pragma once
// MeanAbsolutePercentageError (torchmetrics'): the mean of |preds - target| / |target| over
// every element seen, as a fraction (0.25 is 25%). A |target| below 1.17e-6 counts as
// 1.17e-6, torchmetrics' guard against dividing by zero (sklearn guards with float64's epsilon
// instead, so the two differ only on such targets). States: the float64 sum and the count.
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class MeanAbsolutePercentageError : public Metric {
 public:
  MeanAbsolutePercentageError();
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  StateId sum_abs_per_error_, total_;
};

}  // namespace fulgur::metrics
