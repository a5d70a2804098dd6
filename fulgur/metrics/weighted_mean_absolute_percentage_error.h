#pragma once
// WeightedMeanAbsolutePercentageError (torchmetrics'): sum |preds - target| / sum |target| over
// every element seen, so large targets weigh more than in MeanAbsolutePercentageError and a
// target of 0 does not blow the value up. A total |target| below 1.17e-6 counts as 1.17e-6
// (torchmetrics' guard). States: the two float64 sums, "sum_abs_error" and "sum_scale".
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class WeightedMeanAbsolutePercentageError : public Metric {
 public:
  WeightedMeanAbsolutePercentageError();
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  StateId abs_error_, scale_;
};

}  // namespace fulgur::metrics
