#pragma once
// MeanAbsoluteError (torchmetrics'): the mean of |preds - target| over every element seen.
// States: the float64 sum and the count.
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class MeanAbsoluteError : public Metric {
 public:
  MeanAbsoluteError();
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  StateId sum_abs_error_, total_;
};

}  // namespace fulgur::metrics
