#pragma once
// R2Score (torchmetrics'): the coefficient of determination 1 - RSS / TSS, from sums that
// merge across processes (sum of target, of target^2, of squared residuals, and the count),
// so the synced value is that of all samples. preds/target are [N] for one output or
// [N, num_outputs]; multioutput: "uniform_average" (mean over outputs), "variance_weighted"
// (weighted by each output's TSS) or "raw_values" (a [num_outputs] tensor).
// Fewer than 2 samples raise MetricError (as torchmetrics). A constant target has TSS 0 and
// gives -inf or NaN, as torchmetrics (sklearn's force_finite turns these into 0 or 1).
#include <optional>
#include <string>
#include <utility>

#include "fulgur/metrics/metric.h"
#include "fulgur/metrics/multioutput.h"

namespace fulgur::metrics {

using R2ScoreOptions = MultioutputOptions;

class R2Score : public Metric {
 public:
  // Raises ConfigError for num_outputs < 1 or an unknown multioutput.
  explicit R2Score(R2ScoreOptions options = {});
  bool is_scalar() const override;
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  // For metrics made of the same sums (RelativeSquaredError).
  R2Score(std::string name, R2ScoreOptions options);
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;
  // Per output: the residual sum of squares and the total sum of squares about the target's
  // mean. MetricError for fewer than 2 samples.
  std::pair<at::Tensor, at::Tensor> sums_of_squares();

 private:
  R2ScoreOptions options_;
  StateId sum_squared_obs_, sum_obs_, residual_, total_;
};

}  // namespace fulgur::metrics
