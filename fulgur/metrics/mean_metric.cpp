#include "fulgur/metrics/mean_metric.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fulgur::metrics {

namespace {

const at::TensorOptions kDoubles = at::TensorOptions().dtype(at::kDouble);

}  // namespace

MeanMetric::MeanMetric(AggregationOptions options)
    : BaseAggregator("MeanMetric", std::move(options)) {
  mean_value_ = add_state("mean_value", at::zeros({}, kDoubles), Reduction::Sum);
  weight_ = add_state("weight", at::zeros({}, kDoubles), Reduction::Sum);
}

void MeanMetric::update_state(const at::Tensor& value, const at::Tensor& weight) {
  auto [v, counts] = clean(value, 0.0);
  auto w =
      weight.defined() ? weight.detach().to(v.device(), at::kDouble) : at::ones({}, v.options());
  if (!at::is_expandable_to(w.sizes(), v.sizes())) {
    fail(fmt::format("weight of shape [{}] does not broadcast to the value's shape [{}]",
                     fmt::join(w.sizes(), ", "), fmt::join(v.sizes(), ", ")));
  }
  w = w.expand(v.sizes());
  // A left-out value weighs nothing (its weight may be NaN too).
  if (counts.defined()) w = at::where(counts, w, at::zeros({}, w.options()));
  state(mean_value_).add_((v * w).sum());
  state(weight_).add_(w.sum());
}

at::Tensor MeanMetric::aggregate() { return state(mean_value_) / state(weight_); }

}  // namespace fulgur::metrics
