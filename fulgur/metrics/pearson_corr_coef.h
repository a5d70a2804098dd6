#pragma once
// PearsonCorrCoef (torchmetrics'): the linear correlation of preds and target, in [-1, 1]:
// [N] each for one output, or [N, num_outputs] for a [num_outputs] tensor of per-column
// correlations. Each update keeps its batch's count, means, squared deviations and
// co-deviation per output (a cat state, six numbers per output and update, gathered across
// processes); compute() merges them exactly (Chan's pairwise update), so the value does not
// lose digits when the data sit far from zero, as one-pass sums of x^2 would. Fewer than 2
// samples raise MetricError; a constant preds or target gives NaN, as torchmetrics and scipy.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct PearsonCorrCoefOptions {
  int64_t num_outputs = 1;
};

class PearsonCorrCoef : public Metric {
 public:
  // Raises ConfigError for num_outputs < 1.
  explicit PearsonCorrCoef(PearsonCorrCoefOptions options = {});
  bool is_scalar() const override { return options_.num_outputs == 1; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  // For metrics built on the same moments (ConcordanceCorrCoef).
  PearsonCorrCoef(std::string metric_name, PearsonCorrCoefOptions options);
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

  // Every update's moments merged: each a [num_outputs] float64 tensor.
  struct Moments {
    at::Tensor count, mean_pred, mean_target;
    at::Tensor sq_dev_pred, sq_dev_target, co_dev;  // sums over the samples
  };
  // MetricError when fewer than 2 samples were seen.
  Moments merged_moments() const;
  // A [num_outputs] value as compute() returns it: 0-dim for one output.
  at::Tensor per_output_value(const at::Tensor& value) const;

 private:
  PearsonCorrCoefOptions options_;
  StateId moments_;
};

}  // namespace fulgur::metrics
