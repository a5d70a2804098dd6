#pragma once
// RankCorrelation: what the rank correlations share (SpearmanCorrCoef, KendallRankCorrCoef).
// Ranks need every sample, so preds and target are cat states ([N] for one output, [N,
// num_outputs] for one coefficient per column; memory grows with the samples; sync() gathers
// them from every rank), and compute() takes each column's coefficient from all of them, clipped
// to [-1, 1] as scipy clips. Fewer than 2 samples raise MetricError.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class RankCorrelation : public Metric {
 public:
  bool is_scalar() const override { return num_outputs_ == 1; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  // Raises ConfigError for num_outputs < 1.
  RankCorrelation(std::string name, int64_t num_outputs);
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;
  // One column's coefficient (0-dim) from float64 preds and target [N], N >= 2.
  virtual at::Tensor coefficient(const at::Tensor& preds, const at::Tensor& target) const = 0;

 private:
  int64_t num_outputs_;
  StateId preds_, target_;
};

}  // namespace fulgur::metrics
