#pragma once
// MultilabelRankingMetric: what torchmetrics' multilabel ranking metrics share
// (MultilabelCoverageError, MultilabelRankingAveragePrecision, MultilabelRankingLoss): each
// sample's labels ranked by their scores, a score per sample, and the mean over the samples.
// preds are [N, num_labels] scores of any scale (only their order counts, so logits and
// probabilities rank alike), target [N, num_labels] 0/1. States: the float64 sum of the sample
// scores and the int64 count of samples, both summed across processes. Each update compares
// every pair of a sample's labels: memory N * num_labels^2 booleans per batch.
#include <cstdint>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct MultilabelRankingOptions {
  int64_t num_labels = 0;     // required, at least 2
  bool validate_args = true;  // check that target is 0/1 (one host read per update)
};

class MultilabelRankingMetric : public Metric {
 protected:
  // Raises ConfigError for num_labels < 2.
  MultilabelRankingMetric(std::string name, const MultilabelRankingOptions& options);
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

  // Each sample's score [N], from float64 preds [N, L] and boolean target [N, L]; `at_least`
  // [N, L, L] holds, at [n, j, k], whether label k scores at least as high as label j.
  virtual at::Tensor sample_scores(const at::Tensor& preds, const at::Tensor& target,
                                   const at::Tensor& at_least) const = 0;

 private:
  MultilabelRankingOptions options_;
  StateId score_sum_, samples_;
};

}  // namespace fulgur::metrics
