#pragma once
// Checks shared by the regression metrics: preds and target of one shape, as float64.
#include <ATen/core/Tensor.h>

#include <string>
#include <utility>

namespace fulgur::metrics {

// The smallest denominator the percentage errors divide by (torchmetrics' epsilon): a smaller
// one counts as this instead of dividing by zero.
constexpr double kSmallestDenominator = 1.17e-06;

// MetricError naming `metric` when a tensor is missing or the shapes differ.
void check_same_shape(const std::string& metric, const at::Tensor& preds, const at::Tensor& target);

// (preds, target) as float64 tensors, after check_same_shape.
std::pair<at::Tensor, at::Tensor> regression_pair(const std::string& metric,
                                                  const at::Tensor& preds,
                                                  const at::Tensor& target);

}  // namespace fulgur::metrics
