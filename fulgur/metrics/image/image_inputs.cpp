#include "fulgur/metrics/image/image_inputs.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur::metrics {

double data_range_span(const std::string& metric, const DataRange& range) {
  const auto* bounds = std::get_if<std::pair<double, double>>(&range);
  const double span = bounds ? bounds->second - bounds->first : std::get<double>(range);
  if (!(span > 0)) {
    throw ConfigError(
        bounds ? fmt::format("{}: data_range ({}, {}) is empty; the maximum must exceed the "
                             "minimum",
                             metric, bounds->first, bounds->second)
               : fmt::format("{}: data_range must be positive (the span of the pixel values, "
                             "e.g. 1.0 or 255.0), not {}",
                             metric, span));
  }
  return span;
}

std::pair<at::Tensor, at::Tensor> clamp_to_range(const DataRange& range, at::Tensor preds,
                                                 at::Tensor target) {
  if (const auto* bounds = std::get_if<std::pair<double, double>>(&range)) {
    preds = preds.clamp(bounds->first, bounds->second);
    target = target.clamp(bounds->first, bounds->second);
  }
  return {preds, target};
}

}  // namespace fulgur::metrics
