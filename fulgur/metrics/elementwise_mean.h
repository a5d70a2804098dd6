#pragma once
// The regression metrics that are the mean of an error taken element by element over every
// element seen (MeanSquaredError, MeanAbsoluteError, the percentage and log errors). States:
// the float64 sum of the errors, under torchmetrics' name for it, and the int64 count "total";
// both sum across processes. preds and target must have one shape (MetricError otherwise).
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class ElementwiseMean : public Metric {
 public:
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  // `sum_name`: the sum's state name, as torchmetrics calls it ("sum_squared_error").
  ElementwiseMean(std::string name, const std::string& sum_name);
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

  // Each element's error, from float64 preds and target of one shape.
  virtual at::Tensor error(const at::Tensor& preds, const at::Tensor& target) const = 0;

 private:
  StateId sum_, total_;
};

}  // namespace fulgur::metrics
