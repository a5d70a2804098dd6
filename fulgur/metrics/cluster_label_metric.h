#pragma once
// ClusterLabelMetric: what the extrinsic clustering metrics share (MutualInfoScore, RandScore,
// HomogeneityScore, ...): two clusterings of the same samples, update(preds, target) with 1-D
// integer labels, compared through their contingency matrix. A cluster's label may mean
// different things on each side: only which samples share a cluster counts. Every label is
// kept (cat states; sync() gathers them from every rank), because a cluster may span batches.
// The values are sklearn's, its special cases included; higher is better for every one.
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class ClusterLabelMetric : public Metric {
 public:
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  explicit ClusterLabelMetric(std::string name);
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  // MetricError when no sample was seen.
  at::Tensor compute_value() override;
  // The score of a float64 contingency matrix [target's clusters, preds' clusters].
  virtual double score(const at::Tensor& contingency) const = 0;

 private:
  StateId preds_, target_;
};

}  // namespace fulgur::metrics
