#pragma once
// LogCoshError (torchmetrics'): the mean of log(cosh(preds - target)), which is about half the
// squared error for small errors and the absolute error (less log 2) for large ones, so
// outliers weigh less than in MeanSquaredError. [N] for one output, or [N, num_outputs] for a
// [num_outputs] tensor, one mean per column. Computed as |d| + log1p(exp(-2|d|)) - log 2, so an
// error of 1000 does not overflow cosh. States: the float64 sums per output,
// "sum_log_cosh_error", and the sample count "total".
#include <cstdint>
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct LogCoshErrorOptions {
  int64_t num_outputs = 1;
};

class LogCoshError : public Metric {
 public:
  // Raises ConfigError for num_outputs < 1.
  explicit LogCoshError(LogCoshErrorOptions options = {});
  bool is_scalar() const override { return num_outputs_ == 1; }
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  int64_t num_outputs_;
  StateId sum_, total_;
};

}  // namespace fulgur::metrics
