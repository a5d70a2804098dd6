#include "fulgur/metrics/relative_squared_error.h"

#include <ATen/ATen.h>

#include <limits>

namespace fulgur::metrics {

RelativeSquaredError::RelativeSquaredError(RelativeSquaredErrorOptions options)
    : R2Score("RelativeSquaredError", {.num_outputs = options.num_outputs}),
      squared_(options.squared) {}

at::Tensor RelativeSquaredError::compute_value() {
  const auto [rss, tss] = sums_of_squares();
  const auto relative = rss / tss.clamp_min(std::numeric_limits<double>::epsilon());
  return (squared_ ? relative : relative.sqrt()).mean();
}

}  // namespace fulgur::metrics
