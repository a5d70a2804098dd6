#pragma once
// MeanSquaredError (torchmetrics'): the mean of (preds - target)^2 over every element seen;
// squared=false gives its square root (RMSE). States: the float64 sum and the count.
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct MeanSquaredErrorOptions {
  bool squared = true;  // false: root mean squared error
};

class MeanSquaredError : public Metric {
 public:
  explicit MeanSquaredError(MeanSquaredErrorOptions options = {});
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  MeanSquaredErrorOptions options_;
  StateId sum_squared_error_, total_;
};

}  // namespace fulgur::metrics
