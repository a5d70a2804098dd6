#pragma once
// R2Score (torchmetrics'): the coefficient of determination 1 - RSS / TSS, from sums that
// merge across processes (sum of target, of target^2, of squared residuals, and the count),
// so the synced value is that of all samples. preds/target are [N] for one output or
// [N, num_outputs]; multioutput: "uniform_average" (mean over outputs), "variance_weighted"
// (weighted by each output's TSS) or "raw_values" (a [num_outputs] tensor).
// Fewer than 2 samples raise MetricError (as torchmetrics). A constant target has TSS 0 and
// gives -inf or NaN, as torchmetrics (sklearn's force_finite turns these into 0 or 1).
// adjusted = k > 0 gives the adjusted R^2 of a model of k regressors, 1 - (1 - R^2)(n - 1) /
// (n - k - 1); with n <= k + 1 samples it is undefined, and R^2 itself comes back with a
// warning, as torchmetrics.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "fulgur/metrics/metric.h"
#include "fulgur/metrics/multioutput.h"

namespace fulgur::metrics {

struct R2ScoreOptions {
  int64_t num_outputs = 1;
  std::string multioutput = "uniform_average";
  int64_t adjusted = 0;  // the number of independent regressors; 0: plain R^2
};

class R2Score : public Metric {
 public:
  // Raises ConfigError for num_outputs < 1, an unknown multioutput or adjusted < 0.
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
