#pragma once
// ExplainedVariance (torchmetrics'): 1 - Var(target - preds) / Var(target) per output, from
// sums that merge across processes (of the errors, their squares, the target, its squares,
// and the count). Unlike R2Score, an error that is off by a constant costs nothing. A zero
// numerator scores 1 and a zero target variance with a non-zero numerator 0, as torchmetrics
// and sklearn's force_finite. Shapes and multioutput as in multioutput.h; torchmetrics infers
// the outputs from the first batch, fulgur takes num_outputs up front (as R2Score).
#include <optional>

#include "fulgur/metrics/metric.h"
#include "fulgur/metrics/multioutput.h"

namespace fulgur::metrics {

using ExplainedVarianceOptions = MultioutputOptions;

class ExplainedVariance : public Metric {
 public:
  // Raises ConfigError for num_outputs < 1 or an unknown multioutput.
  explicit ExplainedVariance(ExplainedVarianceOptions options = {});
  bool is_scalar() const override;
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  ExplainedVarianceOptions options_;
  StateId sum_error_, sum_squared_error_, sum_target_, sum_squared_target_, total_;
};

}  // namespace fulgur::metrics
