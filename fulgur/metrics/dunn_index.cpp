#include "fulgur/metrics/dunn_index.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <cstdint>

#include "fulgur/errors.h"

namespace fulgur::metrics {

DunnIndex::DunnIndex(DunnIndexOptions options) : ClusterDataMetric("DunnIndex"), p_(options.p) {
  if (!(p_ >= 1)) {
    throw ConfigError(
        fmt::format("DunnIndex(p={}) must be at least 1 (below 1 it is not a norm)", p_));
  }
}

at::Tensor DunnIndex::score(const at::Tensor& data, const at::Tensor& labels,
                            const at::Tensor& centroids, const at::Tensor& /*sizes*/) const {
  const int64_t clusters = centroids.size(0);
  const auto pairs = at::triu_indices(clusters, clusters, 1, labels.options());
  const auto between =
      (centroids.index_select(0, pairs[0]) - centroids.index_select(0, pairs[1])).norm(p_, 1);
  const auto within = (data - centroids.index_select(0, labels)).norm(p_, 1);
  return between.min() / within.max();
}

}  // namespace fulgur::metrics
