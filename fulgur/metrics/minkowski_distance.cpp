#include "fulgur/metrics/minkowski_distance.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

MinkowskiDistance::MinkowskiDistance(MinkowskiDistanceOptions options)
    : Metric("MinkowskiDistance"), p_(options.p) {
  if (!(p_ >= 1)) {
    throw ConfigError(fmt::format(
        "MinkowskiDistance(p={}) must be at least 1 (below 1 it is not a distance)", p_));
  }
  sum_ = add_state("minkowski_dist_sum", at::zeros({}, at::TensorOptions().dtype(at::kDouble)),
                   Reduction::Sum);
}

void MinkowskiDistance::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = regression_pair(name(), preds, target);
  state(sum_).add_((p - t).abs().pow(p_).sum());
}

at::Tensor MinkowskiDistance::compute_value() { return state(sum_).pow(1 / p_); }

}  // namespace fulgur::metrics
