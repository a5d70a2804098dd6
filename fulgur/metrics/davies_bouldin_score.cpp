#include "fulgur/metrics/davies_bouldin_score.h"

#include <ATen/ATen.h>

#include <limits>

namespace fulgur::metrics {

DaviesBouldinScore::DaviesBouldinScore() : ClusterDataMetric("DaviesBouldinScore") {}

at::Tensor DaviesBouldinScore::score(const at::Tensor& data, const at::Tensor& labels,
                                     const at::Tensor& centroids, const at::Tensor& sizes) const {
  const auto distances = (data - centroids.index_select(0, labels)).norm(2, 1);
  const auto spread = at::zeros_like(sizes).index_add_(0, labels, distances) / sizes;
  auto apart = (centroids.unsqueeze(1) - centroids.unsqueeze(0)).norm(2, 2);
  // sklearn's np.allclose(x, 0): every |x| <= 1e-8.
  constexpr double kZero = 1e-8;
  if (spread.abs().max().item<double>() <= kZero || apart.abs().max().item<double>() <= kZero) {
    return at::zeros({}, data.options());
  }
  // A cluster is not its own rival, nor one with the same centroid.
  apart = apart.masked_fill(apart == 0, std::numeric_limits<double>::infinity());
  return ((spread.unsqueeze(0) + spread.unsqueeze(1)) / apart).amax(1).mean();
}

}  // namespace fulgur::metrics
