#pragma once
// DunnIndex (torchmetrics'): the smallest distance between two centroids over the largest
// distance of a point to its own centroid, both in the p-norm. Higher is better.
#include <optional>

#include "fulgur/metrics/cluster_data_metric.h"

namespace fulgur::metrics {

struct DunnIndexOptions {
  double p = 2;  // the norm's order (infinity for the largest coordinate)
};

class DunnIndex : public ClusterDataMetric {
 public:
  // Raises ConfigError for p < 1 (not a norm).
  explicit DunnIndex(DunnIndexOptions options = {});
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  at::Tensor score(const at::Tensor& data, const at::Tensor& labels, const at::Tensor& centroids,
                   const at::Tensor& sizes) const override;

 private:
  double p_;
};

}  // namespace fulgur::metrics
