#pragma once
// DaviesBouldinScore (torchmetrics', sklearn's davies_bouldin_score): for each cluster, its
// worst ratio (spread_i + spread_j) / distance(centroid_i, centroid_j) over the other clusters,
// the spread being the mean Euclidean distance of a cluster's points to its centroid; the mean of
// those. Lower is better (torchmetrics marks it higher-is-better, which it is not); 0 when every
// spread or every centroid distance is 0 (sklearn).
#include <optional>

#include "fulgur/metrics/cluster_data_metric.h"

namespace fulgur::metrics {

class DaviesBouldinScore : public ClusterDataMetric {
 public:
  DaviesBouldinScore();
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  at::Tensor score(const at::Tensor& data, const at::Tensor& labels, const at::Tensor& centroids,
                   const at::Tensor& sizes) const override;
};

}  // namespace fulgur::metrics
