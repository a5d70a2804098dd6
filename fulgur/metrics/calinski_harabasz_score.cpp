#include "fulgur/metrics/calinski_harabasz_score.h"

#include <ATen/ATen.h>

#include <cstdint>

namespace fulgur::metrics {

CalinskiHarabaszScore::CalinskiHarabaszScore() : ClusterDataMetric("CalinskiHarabaszScore") {}

at::Tensor CalinskiHarabaszScore::score(const at::Tensor& data, const at::Tensor& labels,
                                        const at::Tensor& centroids,
                                        const at::Tensor& sizes) const {
  const int64_t samples = data.size(0), clusters = sizes.numel();
  const auto between = (sizes * (centroids - data.mean(0)).pow(2).sum(1)).sum();
  const auto within = (data - centroids.index_select(0, labels)).pow(2).sum();
  if (within.item<double>() == 0) return at::ones_like(within);
  return between * static_cast<double>(samples - clusters) /
         (within * static_cast<double>(clusters - 1));
}

}  // namespace fulgur::metrics
