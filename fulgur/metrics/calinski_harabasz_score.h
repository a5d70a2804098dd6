#pragma once
// CalinskiHarabaszScore (torchmetrics', sklearn's calinski_harabasz_score; the variance ratio
// criterion): the dispersion between the clusters over the dispersion within them, each per
// degree of freedom. Higher is better; 1 when every cluster is a single point repeated.
#include <optional>

#include "fulgur/metrics/cluster_data_metric.h"

namespace fulgur::metrics {

class CalinskiHarabaszScore : public ClusterDataMetric {
 public:
  CalinskiHarabaszScore();
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  at::Tensor score(const at::Tensor& data, const at::Tensor& labels, const at::Tensor& centroids,
                   const at::Tensor& sizes) const override;
};

}  // namespace fulgur::metrics
