#pragma once
// KendallRankCorrCoef (torchmetrics'): Kendall's tau between preds and target, the balance of
// concordant over discordant pairs, as scipy's kendalltau: variant "a" (no tie correction),
// "b" (default; ties in either corrected for) or "c" (Stuart's, for tables of unequal size).
// [N] each for one output, or [N, num_outputs] for a [num_outputs] tensor of per-column taus.
// Pairs need every sample, so preds and target are cat states (memory grows with the samples;
// sync() gathers them from every rank); compute() counts on the host in O(N log N) (Knight's
// merge sort). Fewer than 2 samples raise MetricError; a constant column gives NaN, as scipy.
// torchmetrics' t_test (the p-value) is not offered.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct KendallRankCorrCoefOptions {
  std::string variant = "b";
  int64_t num_outputs = 1;
};

class KendallRankCorrCoef : public Metric {
 public:
  // Raises ConfigError for an unknown variant or num_outputs < 1.
  explicit KendallRankCorrCoef(KendallRankCorrCoefOptions options = {});
  bool is_scalar() const override { return options_.num_outputs == 1; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  double tau(const at::Tensor& x, const at::Tensor& y) const;

  KendallRankCorrCoefOptions options_;
  StateId preds_, target_;
};

}  // namespace fulgur::metrics
