#include "fulgur/metrics/cluster_data_metric.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <tuple>
#include <utility>

#include "fulgur/metrics/metric_error.h"

namespace fulgur::metrics {

ClusterDataMetric::ClusterDataMetric(std::string name) : Metric(std::move(name)) {
  const auto longs = at::TensorOptions().dtype(at::kLong);
  data_ = add_state("data", at::zeros({0}, at::TensorOptions().dtype(at::kDouble)), Reduction::Cat);
  labels_ = add_state("labels", at::zeros({0}, longs), Reduction::Cat);
  widths_ = add_state("widths", at::zeros({0}, longs), Reduction::Cat);
}

void ClusterDataMetric::update_state(const at::Tensor& data, const at::Tensor& labels) {
  if (!data.defined() || !labels.defined()) fail("update() needs data and cluster labels");
  if (data.dim() != 2 || !data.is_floating_point()) {
    fail(fmt::format("data must be a 2-D float tensor [samples, features], got a {}-D {} tensor",
                     data.dim(), c10::toString(data.scalar_type())));
  }
  if (labels.dim() != 1 || labels.is_floating_point() || labels.is_complex()) {
    fail(fmt::format("labels must be a 1-D integer tensor, got a {}-D {} tensor", labels.dim(),
                     c10::toString(labels.scalar_type())));
  }
  if (labels.size(0) != data.size(0)) {
    fail(fmt::format("data has {} rows but labels has {}; one label per row", data.size(0),
                     labels.size(0)));
  }
  append(data_, data.detach().reshape({-1}));
  append(labels_, labels.detach());
  append(widths_, at::full({1}, data.size(1), labels.options().dtype(at::kLong)));
}

at::Tensor ClusterDataMetric::compute_value() {
  const auto widths = cat_state(widths_);
  const int64_t width = widths.min().item<int64_t>();
  if (widths.max().item<int64_t>() != width) {
    fail(
        fmt::format("the data's rows changed width between updates ({} and {} features); every "
                    "update, on every rank, must have the same",
                    width, widths.max().item<int64_t>()));
  }
  const auto labels = cat_state(labels_);
  const int64_t samples = labels.numel();
  const auto data = cat_state(data_).reshape({samples, width});
  const auto [unique, inverse, counts] =
      at::_unique2(labels, /*sorted=*/true, /*return_inverse=*/true);
  const int64_t clusters = unique.numel();
  if (clusters < 2 || clusters >= samples) {
    fail(fmt::format("needs between 2 and samples - 1 clusters, got {} clusters of {} samples",
                     clusters, samples));
  }
  const auto sizes = at::bincount(inverse, {}, clusters).to(at::kDouble);
  const auto centroids = at::zeros({clusters, width}, data.options()).index_add_(0, inverse, data) /
                         sizes.unsqueeze(1);
  return score(data, inverse, centroids, sizes);
}

}  // namespace fulgur::metrics
