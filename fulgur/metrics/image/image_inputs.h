#pragma once
// What the image metrics share: torchmetrics' data_range.
#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <variant>

namespace fulgur::metrics {

// The range of the pixel values: a span (max - min, e.g. 1.0 or 255.0), or a (min, max) pair
// whose span is used and to which preds and target are clamped first.
using DataRange = std::variant<double, std::pair<double, double>>;

// The span; ConfigError naming `metric` unless it is positive.
double data_range_span(const std::string& metric, const DataRange& range);

// preds and target clamped to a (min, max) range; unchanged for a span.
std::pair<at::Tensor, at::Tensor> clamp_to_range(const DataRange& range, at::Tensor preds,
                                                 at::Tensor target);

}  // namespace fulgur::metrics
