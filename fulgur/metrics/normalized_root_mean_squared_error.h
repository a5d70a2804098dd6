#pragma once
// NormalizedRootMeanSquaredError (torchmetrics'): the root mean squared error divided by a
// scale of the target, per output:
//   "mean"   the target's mean (the scatter index),
//   "range"  its max - min,
//   "std"    its standard deviation (the population one, as torchmetrics),
//   "l2"     its L2 norm, sqrt(sum of target^2).
// preds/target [N] for one output (a 0-dim value) or [N, num_outputs] (a [num_outputs] value).
// States: per output the sums of squared errors and of target^2, the target's min and max, and
// each update's count, target mean and squared deviations (a cat state merged exactly at
// compute(), as PearsonCorrCoef's, so a target far from zero keeps its std's digits).
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct NormalizedRootMeanSquaredErrorOptions {
  std::string normalization = "mean";  // "mean", "range", "std" or "l2"
  int64_t num_outputs = 1;
};

class NormalizedRootMeanSquaredError : public Metric {
 public:
  // Raises ConfigError for an unknown normalization or num_outputs < 1.
  explicit NormalizedRootMeanSquaredError(NormalizedRootMeanSquaredErrorOptions options = {});
  bool is_scalar() const override { return options_.num_outputs == 1; }
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  NormalizedRootMeanSquaredErrorOptions options_;
  StateId squared_error_, target_squared_sum_, target_min_, target_max_, target_moments_;
};

}  // namespace fulgur::metrics
