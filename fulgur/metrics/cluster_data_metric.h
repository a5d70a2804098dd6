#pragma once
// ClusterDataMetric: what the intrinsic clustering metrics share (CalinskiHarabaszScore,
// DaviesBouldinScore, DunnIndex): one clustering judged by the data alone, update(data,
// labels) with float data [N, D] and 1-D integer cluster labels [N]. Every row is kept (cat
// states; sync() gathers them from every rank), because the centroids need all of them. D may
// not change between updates (nor between ranks). compute() needs between 2 and N - 1 clusters
// (sklearn's rule: with one cluster, or one sample per cluster, there is nothing to judge).
#include <cstdint>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class ClusterDataMetric : public Metric {
 protected:
  explicit ClusterDataMetric(std::string name);
  void update_state(const at::Tensor& data, const at::Tensor& labels) override;
  at::Tensor compute_value() override;
  // The score (0-dim float64) of float64 data [N, D] in `clusters` clusters, labels [N] in
  // 0..clusters-1, each cluster's centroid [clusters, D] and size [clusters] given.
  virtual at::Tensor score(const at::Tensor& data, const at::Tensor& labels,
                           const at::Tensor& centroids, const at::Tensor& sizes) const = 0;

 private:
  // The rows are kept flat (their width is only known at the first update), each update's
  // width beside them to check that it never changed.
  StateId data_, labels_, widths_;
};

}  // namespace fulgur::metrics
